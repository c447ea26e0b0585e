/**
 * The configuration server's account store written once on the SQL row driver (CFG-4, ARCH-8):
 * conflicts, lookups, the listing's order, token rotation's answers and one configuration store
 * per account.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import type { ConfigurationAccount, ConfigurationAccountStore } from "../../../ports/configuration-accounts.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { sqlConfigurationStoreOn } from "./configuration-rows.js";
import type { SqlStore } from "./sql-driver.js";
import type { Awaitable, StoreCall } from "./store-call.js";

const shape = (row: ConfigurationAccount | undefined): ConfigurationAccount | null => (row ? { accountId: row.accountId, name: row.name, createdAt: row.createdAt } : null);

/**
 * The account store on a SQL driver: the rows of `configuration_accounts` (whose unique indexes
 * refuse a repeated id, name or token hash) and, per account, the project configuration store
 * keyed by (account, project) on the same connection; the store's `close` releases it, once.
 *
 * @example
 * const accounts = sqlConfigurationAccounts(await openPostgresStore(options));
 */
export function sqlConfigurationAccounts({ driver, call: familyCall, close: closeRows }: SqlStore): ConfigurationAccountStore {
  const { db, dialect: family, tables: { configurationAccounts: accounts }, ops: { and, asc, eq, ne, or } } = driver;
  const stores = new Map<string, ProjectConfigurationStore>();
  let closing: Promise<void> | null = null;
  const call: StoreCall = async (what, step) => {
    if (closing) throw new SteamharnessError("storage_failure", `[steamharness] [${family}] the account store is closed`);
    return familyCall(what, step);
  };
  /**
   * Runs one write; a unique violation is `conflict` (`what` names the taken value) on `field`.
   * The family's call may have wrapped the driver's error once (`cause`).
   */
  const unique = async <T>(operation: string, what: string, field: string, write: () => Awaitable<T>): Promise<T> => {
    try {
      return await call(operation, write);
    } catch (error) {
      const fault = driver.isUniqueViolation(error) ? error : (error as { cause?: unknown } | null)?.cause;
      if (fault !== undefined && driver.isUniqueViolation(fault)) throw new SteamharnessError("conflict", `[steamharness] [${family}] an account with this ${what} already exists`, { field, cause: fault });
      throw error;
    }
  };
  // The first row whose token hash is `tokenHash`, or whose id or name is `idOrName`.
  const find = (what: string, where: unknown) => call(what, () => driver.get(db.select().from(accounts).where(where))).then(shape);
  return {
    async createAccount(input) {
      await unique("account create", "id, name or token", "name", () => driver.run(db.insert(accounts).values({ ...input })));
      return shape(input)!;
    },
    async replaceTokenHash(accountId, tokenHash) {
      // One UPDATE: atomic, and the unique index refuses a hash another account has.
      const row = await unique("account token replace", "token", "tokenHash", () => driver.get(db.update(accounts).set({ tokenHash }).where(and(eq(accounts.accountId, accountId), ne(accounts.tokenHash, tokenHash))).returning()));
      if (row) return shape(row)!;
      // Nothing changed: the account is unknown, or the hash is already its own.
      if (!(await find("account read", eq(accounts.accountId, accountId)))) throw new SteamharnessError("not_found", `[steamharness] [${family}] no account "${accountId}"`, { field: "accountId" });
      throw new SteamharnessError("conflict", `[steamharness] [${family}] an account with this token already exists`, { field: "tokenHash" });
    },
    accountByTokenHash: (tokenHash) => find("account read", eq(accounts.tokenHash, tokenHash)),
    account: (idOrName) => find("account read", or(eq(accounts.accountId, idOrName), eq(accounts.name, idOrName))),
    listAccounts: () => call("account list", () => driver.all(db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.accountId)))).then((found) => found.map((row) => shape(row)!)),
    configurations(accountId) {
      let store = stores.get(accountId);
      if (!store) stores.set(accountId, (store = sqlConfigurationStoreOn({ driver, call: familyCall, close: async () => {} }, accountId)));
      return store;
    },
    close() {
      closing ??= (async () => {
        for (const store of stores.values()) await store.close?.();
        await closeRows();
      })();
      return closing;
    },
  };
}
