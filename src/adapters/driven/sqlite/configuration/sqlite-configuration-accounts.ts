import type { ConfigurationAccountStore } from "../../../../ports/configuration-accounts.js";
import { sqlConfigurationAccounts } from "../../kernel/configuration-accounts.js";
import { openConfigurationDatabase, type SqliteProjectConfigurationStoreOptions } from "./sqlite-project-configuration-store.js";

/** Options of {@link createSqliteConfigurationAccounts}. */
export interface SqliteConfigurationAccountsOptions extends Pick<SqliteProjectConfigurationStoreOptions, "clock" | "busyTimeoutMs" | "migrationsFolder"> {
  /** The database file (created and migrated when missing). */
  path: string;
}

/**
 * The configuration server's accounts on one SQLite file (CFG-4): the kernel's account store over
 * its SQL rows and, per account, the project configuration store keyed by (account, project) in
 * the same file and migrations as the local store. One connection serves every account.
 *
 * @example
 * const accounts = createSqliteConfigurationAccounts({ path: "/srv/steamharness/server.sqlite" });
 * const store = accounts.configurations(account.accountId);
 */
export function createSqliteConfigurationAccounts(options: SqliteConfigurationAccountsOptions): ConfigurationAccountStore {
  return sqlConfigurationAccounts(openConfigurationDatabase(options));
}
