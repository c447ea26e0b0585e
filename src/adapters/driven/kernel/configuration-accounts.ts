/**
 * The configuration server's account store written once (CFG-4, ARCH-8): conflicts, lookups,
 * the listing's order, token rotation's answers and one configuration store per account, over a
 * family's {@link AccountRows}.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import type { ConfigurationAccount, ConfigurationAccountCreate, ConfigurationAccountStore } from "../../../ports/configuration-accounts.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { sqlConfigurationStoreOn } from "./configuration-rows.js";
import { then, type SqlDriver } from "./sql-driver.js";
import type { Awaitable, StoreCall } from "./store-call.js";

/**
 * Row access of `configuration_accounts`. A write that would repeat an account's id, name or
 * token hash throws an error {@link AccountRows.isUniqueViolation} recognises.
 */
export interface AccountRows {
  insert(row: ConfigurationAccountCreate): Awaitable<void>;
  /** Sets the hash when the account exists and has another one; the changed row, or undefined. */
  setTokenHash(accountId: string, tokenHash: string): Awaitable<ConfigurationAccount | undefined>;
  exists(accountId: string): Awaitable<boolean>;
  /** The first row whose token hash is `tokenHash`, or whose id or name is `idOrName`. */
  find(by: { tokenHash: string } | { idOrName: string }): Awaitable<ConfigurationAccount | undefined>;
  /** Every row, oldest first (ties by id). */
  list(): Awaitable<ConfigurationAccount[]>;
  isUniqueViolation(error: unknown): boolean;
}

/** Options of {@link createConfigurationAccounts}. */
export interface ConfigurationAccountsKernelOptions {
  rows: AccountRows;
  /** Refuses calls once closed and maps the driver's faults. */
  call: StoreCall;
  /** The family, for messages. */
  family: string;
  /** The configuration store of one account (made once per account). */
  configurations(accountId: string): ProjectConfigurationStore;
  /** Releases the rows' handles; called once. */
  close(): Promise<void>;
}

const shape = (row: ConfigurationAccount | undefined): ConfigurationAccount | null => (row ? { accountId: row.accountId, name: row.name, createdAt: row.createdAt } : null);

/**
 * The account store over a family's rows.
 *
 * @example
 * const accounts = createConfigurationAccounts({ rows, call: sqliteCall(state), family: "sqlite", configurations, close });
 */
export function createConfigurationAccounts(options: ConfigurationAccountsKernelOptions): ConfigurationAccountStore {
  const { rows, family } = options;
  const stores = new Map<string, ProjectConfigurationStore>();
  let closing: Promise<void> | null = null;
  const call: StoreCall = async (what, step) => {
    if (closing) throw new SteamharnessError("storage_failure", `[steamharness] [${family}] the account store is closed`);
    return options.call(what, step);
  };
  /**
   * Runs one write; a unique violation is `conflict` (`what` names the taken value) on `field`.
   * The family's call may have wrapped the driver's error once (`cause`).
   */
  const unique = async <T>(operation: string, what: string, field: string, write: () => Awaitable<T>): Promise<T> => {
    try {
      return await call(operation, write);
    } catch (error) {
      const fault = rows.isUniqueViolation(error) ? error : (error as { cause?: unknown } | null)?.cause;
      if (fault !== undefined && rows.isUniqueViolation(fault)) throw new SteamharnessError("conflict", `[steamharness] [${family}] an account with this ${what} already exists`, { field, cause: fault });
      throw error;
    }
  };
  return {
    async createAccount(input) {
      await unique("account create", "id, name or token", "name", () => rows.insert({ ...input }));
      return shape(input)!;
    },
    async replaceTokenHash(accountId, tokenHash) {
      // One UPDATE: atomic, and the unique index refuses a hash another account has.
      const row = await unique("account token replace", "token", "tokenHash", () => rows.setTokenHash(accountId, tokenHash));
      if (row) return shape(row)!;
      // Nothing changed: the account is unknown, or the hash is already its own.
      if (!(await call("account read", () => rows.exists(accountId)))) throw new SteamharnessError("not_found", `[steamharness] [${family}] no account "${accountId}"`, { field: "accountId" });
      throw new SteamharnessError("conflict", `[steamharness] [${family}] an account with this token already exists`, { field: "tokenHash" });
    },
    accountByTokenHash: (tokenHash) => call("account read", () => rows.find({ tokenHash })).then(shape),
    account: (idOrName) => call("account read", () => rows.find({ idOrName })).then(shape),
    listAccounts: () => call("account list", () => rows.list()).then((found) => found.map((row) => shape(row)!)),
    configurations(accountId) {
      let store = stores.get(accountId);
      if (!store) stores.set(accountId, (store = options.configurations(accountId)));
      return store;
    },
    close() {
      closing ??= (async () => {
        for (const store of stores.values()) await store.close?.();
        await options.close();
      })();
      return closing;
    },
  };
}

/** The account rows on a SQL driver (`configuration_accounts`); its unique indexes refuse a repeated id, name or token hash. */
function sqlAccountRows(driver: SqlDriver): AccountRows {
  const { db, tables: { configurationAccounts: accounts }, ops: { and, asc, eq, ne, or } } = driver;
  return {
    insert: (row) => then(driver.run(db.insert(accounts).values(row)), () => undefined),
    setTokenHash: (accountId, tokenHash) => driver.get(db.update(accounts).set({ tokenHash }).where(and(eq(accounts.accountId, accountId), ne(accounts.tokenHash, tokenHash))).returning()),
    exists: (accountId) => then(driver.get(db.select({ accountId: accounts.accountId }).from(accounts).where(eq(accounts.accountId, accountId))), (row) => row !== undefined),
    find: (by) => driver.get(db.select().from(accounts).where("tokenHash" in by ? eq(accounts.tokenHash, by.tokenHash) : or(eq(accounts.accountId, by.idOrName), eq(accounts.name, by.idOrName)))),
    list: () => driver.all(db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.accountId))),
    isUniqueViolation: (error) => driver.isUniqueViolation(error),
  };
}

/**
 * The account store on a SQL driver: the rows of `configuration_accounts` and, per account, the
 * project configuration store keyed by (account, project) on the same connection; `close` releases it.
 *
 * @example
 * const accounts = sqlConfigurationAccounts(driver, postgresCall(state), () => connection.release());
 */
export function sqlConfigurationAccounts(driver: SqlDriver, call: StoreCall, close: () => Promise<void>): ConfigurationAccountStore {
  const configurations = (accountId: string) => sqlConfigurationStoreOn(driver, call, accountId, async () => {});
  return createConfigurationAccounts({ rows: sqlAccountRows(driver), call, family: driver.dialect, configurations, close });
}
