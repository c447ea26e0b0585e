import { and, asc, eq, ne, or } from "drizzle-orm";
import type { Clock } from "../../../ports/clock.js";
import type { ConfigurationAccountStore } from "../../../ports/configuration-accounts.js";
import { createConfigurationAccounts, type AccountRows } from "../kernel/configuration-accounts.js";
import { createSystemClock } from "../system/clock.js";
import { driverFault, openPostgres, postgresCall, type PostgresConnectionOptions, type PostgresStoreContext } from "./postgres-database.js";
import { postgresConfigurationStoreOn } from "./postgres-project-configuration-store.js";

/** Options of {@link createPostgresConfigurationAccounts}. */
export interface PostgresConfigurationAccountsOptions extends PostgresConnectionOptions {
  clock?: Clock;
}

/**
 * The account rows on PostgreSQL (`configuration_accounts`); its unique indexes refuse a repeated
 * id, name or token hash (SQLSTATE 23505).
 *
 * @example
 * const rows = createPostgresAccountRows(context);
 */
export function createPostgresAccountRows({ db, tables }: Pick<PostgresStoreContext, "db" | "tables">): AccountRows {
  const accounts = tables.configurationAccounts;
  return {
    insert: async (row) => void (await db.insert(accounts).values(row)),
    setTokenHash: async (accountId, tokenHash) => (await db.update(accounts).set({ tokenHash }).where(and(eq(accounts.accountId, accountId), ne(accounts.tokenHash, tokenHash))).returning())[0],
    exists: async (accountId) => (await db.select({ accountId: accounts.accountId }).from(accounts).where(eq(accounts.accountId, accountId))).length > 0,
    find: async (by) => (await db.select().from(accounts).where("tokenHash" in by ? eq(accounts.tokenHash, by.tokenHash) : or(eq(accounts.accountId, by.idOrName), eq(accounts.name, by.idOrName))))[0],
    list: () => db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.accountId)),
    isUniqueViolation: (error) => (driverFault(error) as { code?: string } | null)?.code === "23505",
  };
}

/**
 * The configuration server's accounts on PostgreSQL (CFG-4): the kernel's account store over
 * {@link createPostgresAccountRows} and, per account, the project configuration store keyed by
 * (account, project), in the schema and migrations of `createPostgresStorage`. One pool serves
 * every account; `close()` ends it when it was made here.
 *
 * @example
 * const accounts = await createPostgresConfigurationAccounts({ connectionString: process.env.DATABASE_URL });
 * const store = accounts.configurations(account.accountId);
 */
export async function createPostgresConfigurationAccounts(options: PostgresConfigurationAccountsOptions = {}): Promise<ConfigurationAccountStore> {
  const connection = await openPostgres(options);
  const { db, tables } = connection;
  const clock = options.clock ?? createSystemClock();
  const state = { closed: false };
  return createConfigurationAccounts({
    rows: createPostgresAccountRows(connection), call: postgresCall(state), family: "postgres",
    configurations: (accountId) => postgresConfigurationStoreOn(db, tables, state, accountId, clock, async () => {}),
    async close() {
      state.closed = true;
      await connection.release();
    },
  });
}
