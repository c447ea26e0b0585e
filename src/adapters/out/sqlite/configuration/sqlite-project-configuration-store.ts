import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import type { ProjectConfigurationState } from "../../../../domain/configuration/configuration-state.js";
import { createStateBackedConfigurationStore } from "../../../../domain/configuration/state-backed-store.js";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { ProjectConfigurationStore } from "../../../../ports/project-configuration-store.js";
import { configurationRowsOf, configurationStateOf } from "../../kernel/configuration-rows.js";
import { createSystemClock } from "../../system/clock.js";
import { drizzleBetterSqlite3, drizzleOrm } from "../shared/drizzle-modules.js";
import { configurationTables } from "./configuration-schema.js";
import { findConfigurationMigrationsFolder, migrateConfigurationDatabase } from "./configuration-migrations.js";
import { ensureMigrated } from "../shared/migrations.js";
import { openSqlite } from "../shared/sqlite-connection.js";

/** The file name of the configuration database inside a data dir. */
export const CONFIGURATION_DATABASE_FILE = "configurations.sqlite";

/** Options of {@link createSqliteProjectConfigurationStore}: a data dir or an explicit file. */
export interface SqliteProjectConfigurationStoreOptions {
  /** The data dir (e.g. `~/.steamharness`); the file is `<dataDir>/configurations.sqlite`. */
  dataDir?: string;
  /** An explicit database file instead of `dataDir`. */
  path?: string;
  clock?: Clock;
  /** How long a write waits for another process's write lock (default 5000 ms). */
  busyTimeoutMs?: number;
  /** The migration folder; default: the package's `drizzle/configuration`. */
  migrationsFolder?: string;
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
  const path = options.path ?? (options.dataDir ? projectConfigurationDatabasePath(options.dataDir) : undefined);
  if (!path) throw new SteamharnessError("input_validation", "[steamharness] [sqlite] give dataDir or path for the configuration store", { field: "dataDir" });
  const { client, db } = openDatabase(path, options);
  let closed = false;
  const guard = <T>(what: string, run: () => T): T => {
    if (closed) throw new SteamharnessError("storage_failure", "[steamharness] [sqlite] the configuration store is closed");
    try {
      return run();
    } catch (error) {
      throw wrapAdapterError("sqlite", what, error);
    }
  };
  return createStateBackedConfigurationStore(
    {
      async load(projectId) {
        return guard("configuration read failed", () => db.transaction((tx) => loadState(tx, projectId)));
      },
      async transact(projectId, apply) {
        return guard("configuration write failed", () =>
          db.transaction(
            (tx) => {
              const { state, changedIds } = apply(loadState(tx, projectId));
              saveState(tx, state, changedIds);
              return state;
            },
            { behavior: "immediate" },
          ),
        );
      },
      async close() {
        if (closed) return;
        closed = true;
        client.close();
      },
    },
    options.clock ?? createSystemClock(),
  );
}

type Db = BetterSQLite3Database;
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

function openDatabase(path: string, options: SqliteProjectConfigurationStoreOptions): { client: Database.Database; db: Db } {
  const folder = options.migrationsFolder ?? findConfigurationMigrationsFolder();
  if (folder === null) throw new SteamharnessError("internal", "[steamharness] [sqlite] drizzle/configuration migrations not found");
  try {
    mkdirSync(dirname(path), { recursive: true });
    const client = openSqlite(path, { timeout: options.busyTimeoutMs ?? 5000 });
    try {
      // PRAGMAs are connection settings drizzle has no builder for.
      client.pragma("journal_mode = WAL");
      client.pragma("synchronous = NORMAL");
      const db = drizzleBetterSqlite3().drizzle({ client });
      ensureMigrated(client, folder, () => migrateConfigurationDatabase(db, folder));
      return { client, db };
    } catch (error) {
      client.close();
      throw error;
    }
  } catch (error) {
    throw wrapAdapterError("sqlite", `cannot open the configuration database ${path}`, error);
  }
}

function loadState(tx: Tx, projectId: string): ProjectConfigurationState {
  const { eq } = drizzleOrm();
  const { configurationProjects, configurations } = configurationTables();
  const project = tx.select().from(configurationProjects).where(eq(configurationProjects.projectId, projectId)).get();
  return configurationStateOf(projectId, project, project ? tx.select().from(configurations).where(eq(configurations.projectId, projectId)).all() : []);
}

function saveState(tx: Tx, state: ProjectConfigurationState, changedIds: string[]): void {
  const { configurationProjects, configurations } = configurationTables();
  const { project, configurations: rows } = configurationRowsOf(state, changedIds);
  tx.insert(configurationProjects).values(project).onConflictDoUpdate({ target: configurationProjects.projectId, set: project }).run();
  for (const row of rows) {
    tx.insert(configurations).values(row).onConflictDoUpdate({ target: [configurations.projectId, configurations.configurationId], set: row }).run();
  }
}
