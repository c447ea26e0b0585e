import { and, asc, eq, ne, or } from "drizzle-orm";
import { SteamharnessError, wrapAdapterError } from "../../../domain/errors.js";
import type { Clock } from "../../../ports/clock.js";
import type { ConfigurationAccount, ConfigurationAccountStore } from "../../../ports/configuration-accounts.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { createSystemClock } from "../system/clock.js";
import { driverFault, guarded, openPostgres, type PostgresConnectionOptions } from "./postgres-database.js";
import { postgresConfigurationStoreOn } from "./postgres-project-configuration-store.js";

/** Options of {@link createPostgresConfigurationAccounts}. */
export interface PostgresConfigurationAccountsOptions extends PostgresConnectionOptions {
  clock?: Clock;
}

/**
 * The configuration server's accounts on PostgreSQL (CFG-4): the `configuration_accounts` table
 * and, per account, the project configuration store keyed by (account, project), in the schema
 * and migrations of `createPostgresStorage`. One pool serves every account; `close()` ends it
 * when it was made here.
 *
 * @example
 * const accounts = await createPostgresConfigurationAccounts({ connectionString: process.env.DATABASE_URL });
 * const store = accounts.configurations(account.accountId);
 */
export async function createPostgresConfigurationAccounts(options: PostgresConfigurationAccountsOptions = {}): Promise<ConfigurationAccountStore> {
  const connection = await openPostgres(options);
  const { db, tables } = connection;
  const accounts = tables.configurationAccounts;
  const clock = options.clock ?? createSystemClock();
  const state = { closed: false };
  const stores = new Map<string, ProjectConfigurationStore>();
  const shape = (row: typeof accounts.$inferSelect | undefined): ConfigurationAccount | null =>
    row ? { accountId: row.accountId, name: row.name, createdAt: row.createdAt } : null;
  /** Runs one write; a unique violation (23505) is `conflict` (`what` names the taken value) on `field`. */
  const unique = async <T>(what: string, field: string, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (error) {
      const fault = driverFault(error) as { code?: string };
      if (fault?.code === "23505") throw new SteamharnessError("conflict", `[steamharness] [postgres] an account with this ${what} already exists`, { field, cause: fault });
      throw error;
    }
  };
  return {
    async createAccount(input) {
      if (state.closed) throw new SteamharnessError("storage_failure", "[steamharness] [postgres] the account store is closed");
      try {
        await unique("id, name or token", "name", () => db.insert(accounts).values(input));
      } catch (error) {
        throw wrapAdapterError("postgres", "account create failed", driverFault(error));
      }
      return { accountId: input.accountId, name: input.name, createdAt: input.createdAt };
    },
    async replaceTokenHash(accountId, tokenHash) {
      return guarded(state, "account token replace", async () => {
        // One UPDATE: atomic, and the unique index refuses a hash another account has.
        const [row] = await unique("token", "tokenHash", () =>
          db.update(accounts).set({ tokenHash }).where(and(eq(accounts.accountId, accountId), ne(accounts.tokenHash, tokenHash))).returning(),
        );
        if (row) return shape(row)!;
        // Nothing changed: the account is unknown, or the hash is already its own.
        const [known] = await db.select({ accountId: accounts.accountId }).from(accounts).where(eq(accounts.accountId, accountId));
        if (!known) throw new SteamharnessError("not_found", `[steamharness] [postgres] no account "${accountId}"`, { field: "accountId" });
        throw new SteamharnessError("conflict", "[steamharness] [postgres] an account with this token already exists", { field: "tokenHash" });
      });
    },
    async accountByTokenHash(tokenHash) {
      return guarded(state, "account read", async () => shape((await db.select().from(accounts).where(eq(accounts.tokenHash, tokenHash)))[0]));
    },
    async account(idOrName) {
      return guarded(state, "account read", async () => shape((await db.select().from(accounts).where(or(eq(accounts.accountId, idOrName), eq(accounts.name, idOrName))))[0]));
    },
    async listAccounts() {
      return guarded(state, "account list", async () => (await db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.accountId))).map((row) => shape(row)!));
    },
    configurations(accountId) {
      let store = stores.get(accountId);
      if (!store) stores.set(accountId, (store = postgresConfigurationStoreOn(db, tables, state, accountId, clock, async () => {})));
      return store;
    },
    async close() {
      if (state.closed) return;
      state.closed = true;
      await connection.release();
    },
  };
}
