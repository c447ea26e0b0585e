import { afterAll, describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemorySessionStore } from "../../src/adapters/driven/memory/memory-session-store.js";
import { createSqliteSessionStore } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-store.js";
import type { SessionEventInput, SessionStore } from "../../src/ports/session-store.js";

const root = mkdtempSync(join(tmpdir(), "sh-session-model-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Op =
  | { kind: "append"; events: Array<{ run: number; n: number; start: boolean }> }
  | { kind: "snapshot"; back: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      events: fc.array(fc.record({ run: fc.nat(2), n: fc.nat(4), start: fc.boolean() }), { maxLength: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("snapshot" as const), back: fc.nat(3) }) },
);

function toEvent(e: { run: number; n: number; start: boolean }): SessionEventInput {
  const runId = `run-${e.run}`;
  if (e.start) {
    return {
      eventId: `${runId}/start/${e.n}`, runId, type: "run_started",
      payload: { prompt: `p${e.n}`, mode: "build", workdir: "/w", effort: "low", provider: "x", model: "y", modelSource: {}, configuration: null, answerItemId: null },
    };
  }
  return { eventId: `${runId}/plan/${e.n}`, runId, type: "plan", payload: { planIndex: e.n, text: `会话 ${e.n}` } };
}

/** Applies one op; returns what the port answered (errors by code) so two adapters can be compared. */
async function apply(store: SessionStore, op: Op): Promise<unknown> {
  try {
    if (op.kind === "append") return await store.append(op.events.map(toEvent));
    const head = await store.head();
    await store.putSnapshot({ atSeq: Math.max(0, head.lastSeq - op.back), state: { at: head.lastSeq - op.back } });
    return "ok";
  } catch (error) {
    return { code: (error as { code?: string }).code };
  }
}

async function observe(store: SessionStore): Promise<unknown> {
  return {
    head: await store.head(),
    all: await store.readAfter(0),
    runs: await Promise.all([0, 1, 2].map((run) => store.readRun(`run-${run}`))),
    plans: await store.readAfter(1, { types: ["plan"], limit: 3 }),
  };
}

describe("SQLite session store against the memory reference adapter", () => {
  it("SES-1 SES-3 any sequence of appends (duplicate ids included) and snapshots gives the same answers", async () => {
    let n = 0;
    const clock = { now: () => 1_700_000_000_000 };
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops) => {
        const address = { projectId: "p", sessionKey: "agent" };
        const memory = createMemorySessionStore({ address, clock });
        const sqlite = createSqliteSessionStore({ path: join(root, `model-${n++}.sqlite`), address, clock });
        try {
          for (const op of ops) expect(await apply(sqlite, op)).toEqual(await apply(memory, op));
          expect(await observe(sqlite)).toEqual(await observe(memory));
        } finally {
          await sqlite.close();
          await memory.close();
        }
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});
