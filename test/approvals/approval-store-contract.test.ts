// Issue 47: the ApprovalStore contract (src/testing) on memory, SQLite (two handles on one file)
// and PostgreSQL (two stores on one schema).
import { mkdtempSync, rmSync } from "node:fs";
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

describePostgres("GOV-1 GOV-5 GOV-7 approval store on PostgreSQL", (database) => {
  runApprovalStoreContract(api, async () => {
    const store = await createPostgresApprovalStore({ connectionString: database.url, schema: database.schema });
    const peer = await createPostgresApprovalStore({ connectionString: database.url, schema: database.schema });
    return { store, inspect: { peer }, dispose: async () => (await store.close(), await peer.close()) };
  });
});
