import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { ConfigurationAccount, ConfigurationAccountStore } from "../../../../ports/configuration-accounts.js";
import type { ProjectConfigurationStore } from "../../../../ports/project-configuration-store.js";
import { createSystemClock } from "../../system/clock.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { configurationTables } from "./configuration-schema.js";
import { openConfigurationDatabase, sqliteConfigurationStoreOn } from "./sqlite-project-configuration-store.js";

/** Options of {@link createSqliteConfigurationAccounts}. */
export interface SqliteConfigurationAccountsOptions {
  /** The database file (created and migrated when missing). */
  path: string;
  clock?: Clock;
  busyTimeoutMs?: number;
  migrationsFolder?: string;
}

/**
 * The configuration server's accounts on one SQLite file (CFG-4): the `configuration_accounts`
 * table and, per account, the project configuration store keyed by (account, project) in the
 * same file and migrations as the local store. One connection serves every account.
 *
 * @example
 * const accounts = createSqliteConfigurationAccounts({ path: "/srv/steamharness/server.sqlite" });
 * const store = accounts.configurations(account.accountId);
 */
export function createSqliteConfigurationAccounts(options: SqliteConfigurationAccountsOptions): ConfigurationAccountStore {
  const { client, db } = openConfigurationDatabase(options);
  const clock = options.clock ?? createSystemClock();
  const state = { closed: false };
  const stores = new Map<string, ProjectConfigurationStore>();
  const { configurationAccounts: accounts } = configurationTables();
  const guard = <T>(what: string, run: () => T): T => {
    if (state.closed) throw new SteamharnessError("storage_failure", "[steamharness] [sqlite] the account store is closed");
    try {
      return run();
    } catch (error) {
      throw wrapAdapterError("sqlite", what, error);
    }
  };
  const shape = (row: typeof accounts.$inferSelect | undefined): ConfigurationAccount | null =>
    row ? { accountId: row.accountId, name: row.name, createdAt: row.createdAt } : null;
  /** Runs one write; a UNIQUE violation is `conflict` (`what` names the taken value) on `field`. */
  const unique = <T>(what: string, field: string, write: () => T): T => {
    try {
      return write();
    } catch (error) {
      if (/UNIQUE constraint failed/.test((error as Error).message)) {
        throw new SteamharnessError("conflict", `[steamharness] [sqlite] an account with this ${what} already exists`, { field, cause: error });
      }
      throw error;
    }
  };
  return {
    async createAccount(input) {
      return guard("account create failed", () => {
        unique("id, name or token", "name", () => db.insert(accounts).values(input).run());
        return { accountId: input.accountId, name: input.name, createdAt: input.createdAt };
      });
    },
    async replaceTokenHash(accountId, tokenHash) {
      const { and, eq, ne } = drizzleOrm();
      return guard("account token replace failed", () => {
        // One UPDATE: atomic, and the UNIQUE index refuses a hash another account has.
        const row = unique("token", "tokenHash", () =>
          db.update(accounts).set({ tokenHash }).where(and(eq(accounts.accountId, accountId), ne(accounts.tokenHash, tokenHash))).returning().get(),
        );
        if (row) return shape(row)!;
        // Nothing changed: the account is unknown, or the hash is already its own.
        if (!db.select({ accountId: accounts.accountId }).from(accounts).where(eq(accounts.accountId, accountId)).get()) {
          throw new SteamharnessError("not_found", `[steamharness] [sqlite] no account "${accountId}"`, { field: "accountId" });
        }
        throw new SteamharnessError("conflict", "[steamharness] [sqlite] an account with this token already exists", { field: "tokenHash" });
      });
    },
    async accountByTokenHash(tokenHash) {
      const { eq } = drizzleOrm();
      return guard("account read failed", () => shape(db.select().from(accounts).where(eq(accounts.tokenHash, tokenHash)).get()));
    },
    async account(idOrName) {
      const { eq, or } = drizzleOrm();
      return guard("account read failed", () => shape(db.select().from(accounts).where(or(eq(accounts.accountId, idOrName), eq(accounts.name, idOrName))).get()));
    },
    async listAccounts() {
      const { asc } = drizzleOrm();
      return guard("account list failed", () => db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.accountId)).all().map((row) => shape(row)!));
    },
    configurations(accountId) {
      let store = stores.get(accountId);
      if (!store) stores.set(accountId, (store = sqliteConfigurationStoreOn(db, state, accountId, clock, async () => {})));
      return store;
    },
    async close() {
      if (state.closed) return;
      state.closed = true;
      client.close();
    },
  };
}
