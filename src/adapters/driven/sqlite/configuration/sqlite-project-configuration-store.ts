import { join } from "node:path";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { ConfigurationAccountStore } from "../../../../ports/configuration-accounts.js";
import type { ProjectConfigurationStore } from "../../../../ports/project-configuration-store.js";
import { sqlConfigurationAccounts } from "../../kernel/configuration-accounts.js";
import { sqlConfigurationStoreOn } from "../../kernel/configuration-rows.js";
import { sqliteStoreOn, type SqliteStore } from "../shared/sqlite-sql-driver.js";
import { configurationTables, type ConfigurationTables } from "./configuration-schema.js";
import { openMigratedSqlite, type MigratedSqliteOptions } from "../shared/migrations.js";

/** The file name of the configuration database inside a data dir. */
export const CONFIGURATION_DATABASE_FILE = "configurations.sqlite";

/**
 * Options of {@link createSqliteProjectConfigurationStore}: a data dir or an explicit file; the
 * migrations folder defaults to the package's `drizzle/configuration`.
 */
export interface SqliteProjectConfigurationStoreOptions extends Pick<MigratedSqliteOptions, "busyTimeoutMs" | "migrationsFolder"> {
  /** The data dir (e.g. `~/.steamharness`); the file is `<dataDir>/configurations.sqlite`. */
  dataDir?: string;
  /** An explicit database file instead of `dataDir`. */
  path?: string;
  clock?: Clock;
  /** The account whose projects this store reads and writes (CFG-4); default "" (a host's own store). */
  accountId?: string;
}

/**
 * The configuration database file of a data dir.
 *
 * @example
 * projectConfigurationDatabasePath("/home/me/.steamharness") // "/home/me/.steamharness/configurations.sqlite"
 */
export function projectConfigurationDatabasePath(dataDir: string): string {
  return join(dataDir, CONFIGURATION_DATABASE_FILE);
}

/**
 * The SQLite project configuration store (CFG-1, PORT-2): one WAL-mode file shared by every local
 * host and process. A write is one `BEGIN IMMEDIATE` transaction that reads the project, applies
 * the domain's rules and writes back, so two processes holding the same revision cannot both win.
 *
 * @example
 * const store = createSqliteProjectConfigurationStore({ dataDir: "/home/me/.steamharness" });
 * const overview = await store.read(projectId);
 * await store.close?.();
 */
export function createSqliteProjectConfigurationStore(options: SqliteProjectConfigurationStoreOptions): ProjectConfigurationStore {
  const store = openConfigurationDatabase(options);
  // The connection is this store's own and only the store writes through it, so SQLite's
  // `data_version` (it changes when another connection, in any process, commits) is a complete
  // change signal once the store's own writes are accounted for (sqlConfigurationStoreOn).
  const dataVersion = store.client.prepare("PRAGMA data_version").pluck();
  return sqlConfigurationStoreOn(store, options.accountId ?? "", () => dataVersion.get() as number);
}

/**
 * Opens (creating and migrating) the configuration database of `options` (`dataDir` or `path`)
 * as the kernel's stores take it; faults and busy retries as every SQLite store's (a retried
 * write reruns its whole transaction).
 *
 * @example
 * const accounts = sqlConfigurationAccounts(openConfigurationDatabase({ path: "/srv/steamharness/server.sqlite" }));
 */
export function openConfigurationDatabase(options: SqliteProjectConfigurationStoreOptions): SqliteStore<ConfigurationTables> {
  const path = options.path ?? (options.dataDir ? projectConfigurationDatabasePath(options.dataDir) : undefined);
  if (!path) throw new SteamharnessError("input_validation", "[steamharness] [sqlite] give dataDir or path for the configuration store", { field: "dataDir" });
  return sqliteStoreOn(openMigratedSqlite(path, { migrations: "configuration", what: "the configuration database", ...options }), configurationTables(), options.clock);
}

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
