import type { ApprovalStore } from "../../../../ports/approval-store.js";
import { createApprovalStore } from "../../kernel/approval-store.js";
import { createKeySecrets } from "../../system/key-secrets.js";
import { openStoreFile, type StoreFileOptions } from "./sqlite-database.js";

/** Options of {@link createSqliteApprovalStore}. */
export type SqliteApprovalStoreOptions = StoreFileOptions;

/**
 * The approval store on a SQLite store file (GOV-1/5/7): the same file, migrations and WAL mode as
 * {@link createSqliteStorage}, so every process that opens it shares requests, decisions (a `once`
 * decision is used by one of them only) and the audit chains. An audit append is one autocommit
 * `INSERT` after the chain's end as this handle last saw it (the `(tenant, seq)` key refuses a
 * number another process took), and a request with its entries one `BEGIN IMMEDIATE`
 * transaction: one commit per gated call. Opening faults throw `storage_failure`.
 *
 * @example
 * const store = createSqliteApprovalStore({ directory: "./data/store" });
 * const permissions = createGovernedToolPermissions({ policy, store, clock });
 */
export function createSqliteApprovalStore(options: SqliteApprovalStoreOptions): ApprovalStore {
  return createApprovalStore(openStoreFile(options), createKeySecrets().digest);
}
