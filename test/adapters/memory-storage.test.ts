import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createSequentialIdSource } from "../../src/adapters/driven/memory/sequential-id-source.js";
import { createSystemClock } from "../../src/adapters/driven/system/clock.js";
import { createRandomIdSource } from "../../src/adapters/driven/system/id-source.js";
import { runClockContract } from "../../src/testing/clock.contract.js";
import { runIdSourceContract } from "../../src/testing/id-source.contract.js";
import { runKnowledgeStoreContract } from "../../src/testing/knowledge-store.contract.js";
import { runKvStoreContract } from "../../src/testing/kv-store.contract.js";
import { runManagedFileStoreContract } from "../../src/testing/managed-file-store.contract.js";
import { runPersistentValueStoreContract } from "../../src/testing/persistent-value-store.contract.js";

const api = { describe, it, expect };
const fresh = () => new MemoryStorage({ maxFileBytes: 64 * 1024 });

describe("PORT-1 MemoryStorage passes every store contract", () => {
  runKvStoreContract(api, () => ({ store: fresh().kv }));
  runKnowledgeStoreContract(api, () => ({ store: fresh().knowledge }));
  runManagedFileStoreContract(api, () => ({ store: fresh().files }));
  runPersistentValueStoreContract(api, () => ({ store: fresh().values }));

  it("keeps agent sessions in memory and closes idempotently", async () => {
    const storage = fresh();
    expect(storage.sessions.durable).toBe(false);
    expect(storage.sessions.kind).toBe("memory");
    await storage.close();
    await storage.close();
  });

  it("stamps entries with the injected clock and ids with the injected id source", async () => {
    const clock = createFixedClock(1_000);
    const storage = new MemoryStorage({ clock, idSource: createSequentialIdSource("t-") });
    await storage.kv.set({ projectId: "p" }, "k", 1);
    clock.advance(500);
    const doc = await storage.knowledge.upsert("p", { documentId: "d", title: "T", markdown: "m" });
    expect((await storage.kv.get({ projectId: "p" }, "k"))?.updatedAt).toBe(1_000);
    expect(doc.createdAt).toBe(1_500);
    expect((await storage.files.put("p", new Uint8Array([1]), { name: "n" })).fileId).toBe("file_t-1");
  });
});

describe("ARCH-8 the memory family keeps nothing on disk", () => {
  it("ARCH-8 a process that uses every memory store leaves no file in its working directory or its temp dir", () => {
    const root = mkdtempSync(join(tmpdir(), "memory-run-"));
    const cwd = join(root, "cwd");
    const temp = join(root, "tmp");
    mkdirSync(cwd);
    mkdirSync(temp);
    try {
      const script = bundledFixture(join("test", "adapters", "fixtures", "memory-run.ts"));
      // SQLite puts its temporary files in SQLITE_TMPDIR or TMPDIR: both point at the watched folder.
      const run = spawnSync(process.execPath, [script], { cwd, env: { ...process.env, TMPDIR: temp, SQLITE_TMPDIR: temp }, encoding: "utf8", timeout: 120_000 });
      expect(run.stderr).toBe("");
      expect(run.stdout).toBe("ok");
      expect(readdirSync(cwd)).toEqual([]);
      expect(readdirSync(temp)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("PORT-1 clocks and id sources pass their contracts", () => {
  runClockContract(api, () => ({ store: createSystemClock() }));
  runClockContract(api, () => ({ store: createFixedClock(Date.UTC(2026, 0, 1)) }));
  runIdSourceContract(api, () => ({ store: createRandomIdSource() }));
  runIdSourceContract(api, () => ({ store: createSequentialIdSource("seq-") }));

  it("a fixed clock moves only forward when told", () => {
    const clock = createFixedClock(10);
    expect(clock.now()).toBe(10);
    clock.advance(5);
    expect(clock.now()).toBe(15);
    expect(() => clock.set(3)).toThrow(expect.objectContaining({ code: "input_validation" }));
  });
});

describe("PORT-1 contract options", () => {
  it("an unknown skip name fails the run", () => {
    expect(() => runKvStoreContract(api, () => ({ store: fresh().kv }), { skip: ["no such case"] })).toThrow(/unknown skip/);
  });
});
