// Issue 47: the ApprovalStore contract (src/testing) on memory, SQLite (two handles on one file)
// and PostgreSQL (two stores on one schema).
import { mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createMemoryApprovalStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createPostgresApprovalStore } from "../../src/adapters/driven/postgres/postgres-approval-store.js";
import { createSqliteApprovalStore } from "../../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { runApprovalStoreContract } from "../../src/testing/approval-store.contract.js";
import { describePostgres } from "../fixtures/postgres.js";

const api = { describe, it, expect };

describe("GOV-1 GOV-5 GOV-7 approval store on memory", () => {
  runApprovalStoreContract(api, () => ({ store: createMemoryApprovalStore() }));
});

describe("GOV-1 GOV-5 GOV-7 approval store on SQLite", () => {
  runApprovalStoreContract(api, () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-approval-contract-"));
    const store = createSqliteApprovalStore({ directory });
    const peer = createSqliteApprovalStore({ directory });
    return { store, inspect: { peer }, dispose: async () => (await store.close(), await peer.close(), rmSync(directory, { recursive: true, force: true })) };
  });
});

describe("GOV-7 the SQLite store file's WAL checkpoints past 4,096 pages, not inside the gated call that crosses 1,000", () => {
  it("GOV-7 a burst past SQLite's 1,000-page checkpoint leaves the file untouched; closing checkpoints it", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-approval-checkpoint-"));
    const file = join(directory, "store.sqlite");
    let store = createSqliteApprovalStore({ directory });
    try {
      await store.appendAudit({ tenant: "t", at: 1, kind: "use", requestId: null, data: {} });
      const before = statSync(file).size;
      // ~1,800 WAL pages of entries: SQLite's default would have checkpointed inside the call that crossed 1,000.
      for (let n = 0; n < 600; n++) await store.appendAudit({ tenant: "t", at: n, kind: "use", requestId: `r${n}`, data: { pad: "x".repeat(3000) } });
      expect(statSync(file).size).toBe(before);
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(1000 * 4096);
      await store.close();
      expect(statSync(file).size).toBeGreaterThan(before + 500 * 4096);
      store = createSqliteApprovalStore({ directory });
      expect(await store.audit("t")).toHaveLength(601);
    } finally {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

/** This process's descriptors on `file`, its WAL and its shared-memory file. */
const descriptorsOn = (file: string): string[] =>
  readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      const target = readlinkSync(join("/proc/self/fd", fd));
      return target.startsWith(file) ? [target] : [];
    } catch {
      return [];
    }
  });

describe("GOV-7 one connection per store file in a process", () => {
  it("GOV-7 the storage and two approval stores of one store.sqlite (one by a symlinked folder) share one connection; closing one (twice) leaves the others working; the last close leaves no descriptor", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-approval-shared-"));
    const file = join(directory, "store.sqlite");
    symlinkSync(directory, `${directory}-link`);
    const storage = createSqliteStorage({ directory, agentStoreDir: join(directory, "agents") });
    const held = descriptorsOn(file);
    // One connection: the database file once (and its WAL and shared memory once each).
    expect(held.filter((target) => target === file)).toHaveLength(1);
    const approvals = createSqliteApprovalStore({ directory });
    const linked = createSqliteApprovalStore({ directory: `${directory}-link` });
    try {
      expect(descriptorsOn(file)).toEqual(held);
      await approvals.appendAudit({ tenant: "t", at: 1, kind: "use", requestId: null, data: { n: 1 } });
      await storage.kv.set({ projectId: "p" }, "k", { v: 1 });
      await storage.close();
      await storage.close();
      await expect(storage.kv.get({ projectId: "p" }, "k")).rejects.toMatchObject({ code: "storage_failure" });
      expect(descriptorsOn(file)).toEqual(held);
      await linked.appendAudit({ tenant: "t", at: 2, kind: "use", requestId: null, data: { n: 2 } });
      expect((await approvals.audit("t")).map((entry) => entry.data)).toEqual([{ n: 1 }, { n: 2 }]);
      await approvals.close();
      await approvals.close();
      await expect(approvals.audit("t")).rejects.toMatchObject({ code: "storage_failure" });
      expect(await linked.audit("t")).toHaveLength(2);
      await linked.close();
      expect(descriptorsOn(file)).toEqual([]);
      // Opened again after the last close: a new connection on what was written.
      const again = createSqliteStorage({ directory, agentStoreDir: join(directory, "agents") });
      expect(await again.kv.get({ projectId: "p" }, "k")).toMatchObject({ value: { v: 1 } });
      await again.close();
      expect(descriptorsOn(file)).toEqual([]);
    } finally {
      await Promise.all([storage.close(), approvals.close(), linked.close()]);
      rmSync(`${directory}-link`, { force: true });
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describePostgres("GOV-1 GOV-5 GOV-7 approval store on PostgreSQL", (database) => {
  runApprovalStoreContract(api, async () => {
    const store = await createPostgresApprovalStore({ connectionString: database.url, schema: database.schema });
    const peer = await createPostgresApprovalStore({ connectionString: database.url, schema: database.schema });
    return { store, inspect: { peer }, dispose: async () => (await store.close(), await peer.close()) };
  });
});
