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

const shape = (row: ConfigurationAccount | undefined): ConfigurationAccount | null => (row ? { accountId: row.accountId, name: row.name, createdAt: row.createdAt } : null);

/**
 * The account store on a SQL driver: the rows of `configuration_accounts` (whose unique indexes
 * refuse a repeated id, name or token hash) and, per account, the project configuration store
 * keyed by (account, project) on the same connection; the store's `close` releases it, once.
 *
 * @example
 * const accounts = sqlConfigurationAccounts(await openPostgresStore(options));
 */
export function sqlConfigurationAccounts({ driver, call, close }: SqlStore): ConfigurationAccountStore {
  const { db, dialect: family, tables: { configurationAccounts: accounts }, ops: { and, asc, eq, ne, or } } = driver;
  const stores = new Map<string, ProjectConfigurationStore>();
  const taken = (what: string, field: string, cause?: unknown) => new SteamharnessError("conflict", `[steamharness] [${family}] an account with this ${what} already exists`, { field, ...(cause === undefined ? {} : { cause }) });
  // The first row whose token hash is `tokenHash`, or whose id or name is `idOrName`.
  const find = (what: string, where: unknown) => call(what, () => driver.get(db.select().from(accounts).where(where))).then(shape);
  return {
    async createAccount(input) {
      // A repeated id, name or token hash: the unique indexes make the insert do nothing.
      if ((await call("account create", () => driver.run(db.insert(accounts).values({ ...input }).onConflictDoNothing()))) === 0) throw taken("id, name or token", "name");
      return shape(input)!;
    },
    async replaceTokenHash(accountId, tokenHash) {
      // One UPDATE: atomic, and the unique index refuses a hash another account has (the family's call wrapped the driver's error: its cause).
      const row = await call("account token replace", () => driver.get(db.update(accounts).set({ tokenHash }).where(and(eq(accounts.accountId, accountId), ne(accounts.tokenHash, tokenHash))).returning())).catch((error: { cause?: unknown }) => {
        throw driver.isUniqueViolation(error?.cause) ? taken("token", "tokenHash", error.cause) : error;
      });
      if (row) return shape(row)!;
      // Nothing changed: the account is unknown, or the hash is already its own.
      if (!(await find("account read", eq(accounts.accountId, accountId)))) throw new SteamharnessError("not_found", `[steamharness] [${family}] no account "${accountId}"`, { field: "accountId" });
      throw taken("token", "tokenHash");
    },
    accountByTokenHash: (tokenHash) => find("account read", eq(accounts.tokenHash, tokenHash)),
    account: (idOrName) => find("account read", or(eq(accounts.accountId, idOrName), eq(accounts.name, idOrName))),
    listAccounts: () => call("account list", () => driver.all(db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.accountId)))).then((found) => found.map((row) => shape(row)!)),
    configurations(accountId) {
      let store = stores.get(accountId);
      if (!store) stores.set(accountId, (store = sqlConfigurationStoreOn({ driver, call, close: async () => {} }, accountId)));
      return store;
    },
    // Once closed, every store's call (the accounts' and each account's projects') is refused by the family's.
    close,
  };
}
