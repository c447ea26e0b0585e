import type { ApprovalStore } from "../../../../ports/approval-store.js";
import { createApprovalStore, sqlApprovalRows } from "../../kernel/approval-store.js";
import { createKeySecrets } from "../../system/key-secrets.js";
import { openStoreFile, type StoreFileOptions } from "./sqlite-database.js";

/** Options of {@link createSqliteApprovalStore}. */
export type SqliteApprovalStoreOptions = StoreFileOptions;

/**
 * The approval store on a SQLite store file (GOV-1/5/7): the same file, migrations and WAL mode as
 * {@link createSqliteStorage}, so every process that opens it shares requests, decisions (a `once`
 * decision is used by one of them only) and the audit chains. An audit append is a `BEGIN
 * IMMEDIATE` transaction (the write lock is taken before the chain's end is read), and a request
 * with its entries is one: one commit per gated call, each touched page written to the WAL once
 * (fewer frames, fewer checkpoints on the call path). Opening faults throw `storage_failure`.
 *
 * @example
 * const store = createSqliteApprovalStore({ directory: "./data/store" });
 * const permissions = createGovernedToolPermissions({ policy, store, clock });
 */
export function createSqliteApprovalStore(options: SqliteApprovalStoreOptions): ApprovalStore {
  const { driver, call, close } = openStoreFile(options);
  return createApprovalStore(sqlApprovalRows(driver), createKeySecrets().digest, call, close);
}
