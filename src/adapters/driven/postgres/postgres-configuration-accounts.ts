import type { Clock } from "../../../ports/clock.js";
import type { ConfigurationAccountStore } from "../../../ports/configuration-accounts.js";
import { sqlConfigurationAccounts } from "../kernel/configuration-accounts.js";
import type { PostgresConnectionOptions } from "./postgres-database.js";
import { openPostgresStore } from "./postgres-sql-driver.js";

/** Options of {@link createPostgresConfigurationAccounts}. */
export interface PostgresConfigurationAccountsOptions extends PostgresConnectionOptions {
  clock?: Clock;
}

/**
 * The configuration server's accounts on PostgreSQL (CFG-4): the kernel's account store over its
 * SQL rows and, per account, the project configuration store keyed by (account, project), in the
 * schema and migrations of `createPostgresStorage`. One pool serves every account; `close()` ends
 * it when it was made here.
 *
 * @example
 * const accounts = await createPostgresConfigurationAccounts({ connectionString: process.env.DATABASE_URL });
 * const store = accounts.configurations(account.accountId);
 */
export async function createPostgresConfigurationAccounts(options: PostgresConfigurationAccountsOptions = {}): Promise<ConfigurationAccountStore> {
  return sqlConfigurationAccounts(await openPostgresStore(options, options.clock));
}
