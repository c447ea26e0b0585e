import type { ApiKeyStore } from "../../../../ports/api-keys.js";
import type { BudgetLedger } from "../../../../ports/budget-ledger.js";
import { createSqliteBudgetLedger } from "./sqlite-budget-ledger.js";
import { createApiKeyStore } from "../../kernel/api-keys.js";
import { openStoreFile, type StoreFileOptions } from "./sqlite-database.js";
import { createKeySecrets } from "../../system/key-secrets.js";

/** Options of {@link createSqliteApiKeyStore}. */
export type SqliteApiKeyStoreOptions = StoreFileOptions;

/**
 * The API-key store on a SQLite store file (BUD-4): the same file, migrations and WAL mode as
 * {@link createSqliteStorage}, so every process on one machine that opens it shares keys,
 * tenants, rate windows and slots; `budgets` is the budget ledger of the same file (where a
 * gateway reserves tenant budgets). Opening faults throw `storage_failure`.
 *
 * @example
 * const keys = createSqliteApiKeyStore({ directory: "~/.steamharness/gateway" });
 * const { secret } = await keys.add({ id: "acme", requestsPerMinute: 60 }, Date.now());
 * await keys.close();
 */
export function createSqliteApiKeyStore(options: SqliteApiKeyStoreOptions): ApiKeyStore & { readonly budgets: BudgetLedger } {
  const store = openStoreFile(options);
  // The tenant budgets' ledger on the same file and connection (the gateway reserves in it).
  return Object.assign(createApiKeyStore(store, createKeySecrets()), { budgets: createSqliteBudgetLedger(store) });
}
