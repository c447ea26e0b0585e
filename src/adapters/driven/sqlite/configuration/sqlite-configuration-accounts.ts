import type { ConfigurationAccountStore } from "../../../../ports/configuration-accounts.js";
import { createConfigurationAccounts, type AccountRows } from "../../kernel/configuration-accounts.js";
import { createSystemClock } from "../../system/clock.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { sqliteCall } from "../store/sqlite-support.js";
import { configurationTables } from "./configuration-schema.js";
import { openConfigurationDatabase, sqliteConfigurationStoreOn, type OpenConfigurationDatabase, type SqliteProjectConfigurationStoreOptions } from "./sqlite-project-configuration-store.js";

/** Options of {@link createSqliteConfigurationAccounts}. */
export interface SqliteConfigurationAccountsOptions extends Pick<SqliteProjectConfigurationStoreOptions, "clock" | "busyTimeoutMs" | "migrationsFolder"> {
  /** The database file (created and migrated when missing). */
  path: string;
}

/**
 * The account rows on SQLite (`configuration_accounts`); its UNIQUE indexes refuse a repeated
 * id, name or token hash.
 *
 * @example
 * const rows = createSqliteAccountRows(db);
 */
export function createSqliteAccountRows(db: OpenConfigurationDatabase["db"]): AccountRows {
  const { and, asc, eq, ne, or } = drizzleOrm();
  const { configurationAccounts: accounts } = configurationTables();
  return {
    insert: (row) => void db.insert(accounts).values(row).run(),
    setTokenHash: (accountId, tokenHash) => db.update(accounts).set({ tokenHash }).where(and(eq(accounts.accountId, accountId), ne(accounts.tokenHash, tokenHash))).returning().get(),
    exists: (accountId) => db.select({ accountId: accounts.accountId }).from(accounts).where(eq(accounts.accountId, accountId)).get() !== undefined,
    find: (by) => db.select().from(accounts).where("tokenHash" in by ? eq(accounts.tokenHash, by.tokenHash) : or(eq(accounts.accountId, by.idOrName), eq(accounts.name, by.idOrName))).get(),
    list: () => db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.accountId)).all(),
    isUniqueViolation: (error) => /UNIQUE constraint failed/.test((error as Error | null)?.message ?? ""),
  };
}

/**
 * The configuration server's accounts on one SQLite file (CFG-4): the kernel's account store over
 * {@link createSqliteAccountRows} and, per account, the project configuration store keyed by
 * (account, project) in the same file and migrations as the local store. One connection serves
 * every account.
 *
 * @example
 * const accounts = createSqliteConfigurationAccounts({ path: "/srv/steamharness/server.sqlite" });
 * const store = accounts.configurations(account.accountId);
 */
export function createSqliteConfigurationAccounts(options: SqliteConfigurationAccountsOptions): ConfigurationAccountStore {
  const { client, db } = openConfigurationDatabase(options);
  const clock = options.clock ?? createSystemClock();
  const state = { closed: false };
  return createConfigurationAccounts({
    rows: createSqliteAccountRows(db), call: sqliteCall(state), family: "sqlite",
    configurations: (accountId) => sqliteConfigurationStoreOn(db, state, accountId, clock, async () => {}),
    async close() {
      state.closed = true;
      client.close();
    },
  });
}
