import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { createMemoryProjectConfigurationStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createSqliteProjectConfigurationStore } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import type { ProjectConfigurationStore } from "../../src/ports/project-configuration-store.js";

// Random command sequences (with plausible and stale revisions) run against the memory reference
// and the SQLite store: every outcome (result or error code) and the final state must agree.
type Command =
  | { op: "create"; id: string; title: string }
  | { op: "update"; id: string; revision: number; title: string }
  | { op: "delete"; id: string; revision: number }
  | { op: "select"; id: string; revision: number }
  | { op: "fields"; revision: number; strict: boolean }
  | { op: "reimport"; revision: number };

const id = fc.constantFrom("a", "b", "c");
const revision = fc.integer({ min: 0, max: 5 });
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constant("create" as const), id, title: fc.string({ maxLength: 5 }) }),
  fc.record({ op: fc.constant("update" as const), id, revision, title: fc.string({ maxLength: 5 }) }),
  fc.record({ op: fc.constant("delete" as const), id, revision }),
  fc.record({ op: fc.constant("select" as const), id, revision }),
  fc.record({ op: fc.constant("fields" as const), revision: fc.integer({ min: 0, max: 12 }), strict: fc.boolean() }),
  fc.record({ op: fc.constant("reimport" as const), revision: fc.integer({ min: 0, max: 12 }) }),
);

async function apply(store: ProjectConfigurationStore, c: Command): Promise<unknown> {
  const p = "p";
  try {
    switch (c.op) {
      case "create":
        return await store.create(p, { configurationId: c.id, name: c.id.toUpperCase(), values: { title: c.title } });
      case "update":
        return await store.update(p, c.id, { expectedRevision: c.revision, values: { title: c.title } });
      case "delete":
        return await store.delete(p, c.id, { expectedRevision: c.revision });
      case "select":
        return await store.select(p, c.id, { expectedRevision: c.revision });
      case "fields":
        return await store.setFields(p, [{ key: "title", type: "string", ...(c.strict ? { required: true } : {}) }], { expectedRevision: c.revision });
      case "reimport": {
        const document = await store.exportProject(p);
        return await store.importProject(p, { ...document, exportedAt: undefined }, { expectedRevision: c.revision });
      }
    }
  } catch (error) {
    return { failed: (error as { code?: string }).code };
  }
}

describe("CFG-1 memory and SQLite stores agree", () => {
  it("CFG-1 random command sequences give the same outcomes and the same final state on both adapters", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), async (commands) => {
        const dir = mkdtempSync(join(tmpdir(), "cfg-equiv-"));
        const memory = createMemoryProjectConfigurationStore({ clock: createFixedClock(1000) });
        const sqlite = createSqliteProjectConfigurationStore({ dataDir: dir, clock: createFixedClock(1000) });
        try {
          for (const c of commands) {
            expect(await apply(sqlite, c)).toEqual(await apply(memory, c));
          }
          expect(await sqlite.read("p")).toEqual(await memory.read("p"));
          for (const key of ["a", "b", "c"]) expect(await sqlite.lookup("p", key)).toEqual(await memory.lookup("p", key));
        } finally {
          await sqlite.close?.();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
