// Issue 47: the ApprovalStore contract (src/testing) on memory, SQLite (two handles on one file)
// and PostgreSQL (two stores on one schema).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createMemoryApprovalStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createPostgresApprovalStore } from "../../src/adapters/driven/postgres/postgres-approval-store.js";
import { createSqliteApprovalStore } from "../../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
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

describePostgres("GOV-1 GOV-5 GOV-7 approval store on PostgreSQL", (database) => {
  runApprovalStoreContract(api, async () => {
    const store = await createPostgresApprovalStore({ connectionString: database.url, schema: database.schema });
    const peer = await createPostgresApprovalStore({ connectionString: database.url, schema: database.schema });
    return { store, inspect: { peer }, dispose: async () => (await store.close(), await peer.close()) };
  });
});
