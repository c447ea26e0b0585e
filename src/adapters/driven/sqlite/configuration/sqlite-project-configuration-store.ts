import { join } from "node:path";
import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { ProjectConfigurationStore } from "../../../../ports/project-configuration-store.js";
import { sqlConfigurationStoreOn } from "../../kernel/configuration-rows.js";
import { createSystemClock } from "../../system/clock.js";
import { sqliteSqlDriver } from "../shared/sqlite-sql-driver.js";
import { configurationTables } from "./configuration-schema.js";
import { openMigratedSqlite, type MigratedSqliteOptions } from "../shared/migrations.js";
import { sqliteCall } from "../store/sqlite-support.js";

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
  const { client, db } = openConfigurationDatabase(options);
  const state = { closed: false };
  // The connection is this store's own and only the store writes through it, so SQLite's
  // `data_version` (it changes when another connection, in any process, commits) is a complete
  // change signal once the store's own writes are accounted for (sqlConfigurationStoreOn).
  const dataVersion = client.prepare("PRAGMA data_version").pluck();
  return sqliteConfigurationStoreOn(
    db,
    state,
    options.accountId ?? "",
    options.clock ?? createSystemClock(),
    async () => {
      if (state.closed) return;
      state.closed = true;
      client.close();
    },
    () => dataVersion.get() as number,
  );
}

/** An open, migrated configuration database. */
export interface OpenConfigurationDatabase {
  client: Database.Database;
  db: BetterSQLite3Database;
}

/**
 * Opens (creating and migrating) the configuration database of `options` (`dataDir` or `path`).
 *
 * @example
 * const { client, db } = openConfigurationDatabase({ path: "/srv/steamharness/server.sqlite" });
 */
export function openConfigurationDatabase(options: SqliteProjectConfigurationStoreOptions): OpenConfigurationDatabase {
  const path = options.path ?? (options.dataDir ? projectConfigurationDatabasePath(options.dataDir) : undefined);
  if (!path) throw new SteamharnessError("input_validation", "[steamharness] [sqlite] give dataDir or path for the configuration store", { field: "dataDir" });
  return openMigratedSqlite(path, { migrations: "configuration", what: "the configuration database", ...options });
}

/**
 * The port over an open configuration database, scoped to one account's projects (see the
 * kernel's `sqlConfigurationStoreOn`); busy retries and fault wrapping as every SQLite store (a
 * retried write reruns its whole transaction).
 *
 * @example
 * const store = sqliteConfigurationStoreOn(db, { closed: false }, accountId, clock, async () => {});
 */
export function sqliteConfigurationStoreOn(
  db: BetterSQLite3Database,
  state: { closed: boolean },
  accountId: string,
  clock: Clock,
  close: () => Promise<void>,
  changeSignal?: () => number,
): ProjectConfigurationStore {
  return sqlConfigurationStoreOn(sqliteSqlDriver(db, configurationTables(), clock), sqliteCall(state), accountId, close, changeSignal);
}
