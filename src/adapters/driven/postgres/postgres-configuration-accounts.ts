import type { Clock } from "../../../ports/clock.js";
import type { ConfigurationAccountStore } from "../../../ports/configuration-accounts.js";
import { sqlConfigurationAccounts } from "../kernel/configuration-accounts.js";
import { createSystemClock } from "../system/clock.js";
import { openPostgres, postgresCall, type PostgresConnectionOptions } from "./postgres-database.js";
import { postgresSqlDriver } from "./postgres-sql-driver.js";

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
  const connection = await openPostgres(options);
  const driver = postgresSqlDriver(connection.db, connection.tables, options.clock ?? createSystemClock());
  const state = { closed: false };
  return sqlConfigurationAccounts(driver, postgresCall(state), async () => {
    state.closed = true;
    await connection.release();
  });
}
