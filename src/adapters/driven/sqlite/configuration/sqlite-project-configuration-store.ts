import { join } from "node:path";
import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import type { ProjectConfigurationState } from "../../../../domain/configuration/configuration-state.js";
import { createStateBackedConfigurationStore } from "../../../../domain/configuration/state-backed-store.js";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { ProjectConfigurationStore } from "../../../../ports/project-configuration-store.js";
import { configurationRowsOf, configurationStateOf } from "../../kernel/configuration-rows.js";
import { createSystemClock } from "../../system/clock.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
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
  // change signal once the store's own writes are accounted for (sqliteConfigurationStoreOn).
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

/** Projects whose state one store keeps in memory at most (a worker reads one). */
const CACHED_PROJECTS = 64;

/**
 * The port over an open database, scoped to one account's projects; `close` is what the
 * store's `close()` runs (the owner of the connection decides what it releases).
 *
 * `changeSignal`, when given, is a cheap read whose value changes whenever anyone but this
 * store commits to the database (SQLite's `PRAGMA data_version` on a connection only this store
 * writes through): reads are then answered from the state loaded last while the signal keeps
 * its value and this store has not written since, so a workflow worker's per-run read (CFG-2)
 * costs one tiny statement — and a change made by another process is seen by the very next read.
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
  // Busy retries and fault wrapping as every SQLite store; a retried write reruns its whole transaction.
  const call = sqliteCall(state);
  // Every workflow run reads its project's configuration (its snapshot, CFG-2): the two reads
  // are prepared on first use and kept (the connection's statements also run inside its transactions).
  let reads: ReturnType<typeof prepareStateReads> | undefined;
  const stateOf = (projectId: string) => loadState((reads ??= prepareStateReads(db)), accountId, projectId);
  // States loaded under the signal's value `version` (the domain never mutates a loaded state:
  // its readers and commands copy it).
  const cache = { version: Number.NaN, states: new Map<string, ProjectConfigurationState>() };
  const cachedLoad = (projectId: string): ProjectConfigurationState => {
    if (!changeSignal) return db.transaction(() => stateOf(projectId));
    // The signal is read before the state: a commit landing in between makes the next read load again.
    const version = changeSignal();
    if (version !== cache.version) {
      cache.states.clear();
      cache.version = version;
    }
    let loaded = cache.states.get(projectId);
    if (loaded === undefined) {
      loaded = db.transaction(() => stateOf(projectId));
      if (cache.states.size >= CACHED_PROJECTS) cache.states.clear();
      cache.states.set(projectId, loaded);
    }
    return loaded;
  };
  return createStateBackedConfigurationStore(
    {
      async load(projectId) {
        return call("configuration read", () => cachedLoad(projectId));
      },
      async transact(projectId, apply) {
        // This store's own commits leave `data_version` as it is: they drop what it remembers.
        cache.states.clear();
        return call("configuration write", () =>
          db.transaction(
            (tx) => {
              const { state: next, changedIds } = apply(stateOf(projectId));
              saveState(tx, accountId, next, changedIds);
              return next;
            },
            { behavior: "immediate" },
          ),
        );
      },
      close,
    },
    clock,
  );
}

type Db = BetterSQLite3Database;
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The reads of {@link loadState}, prepared with placeholders. */
function prepareStateReads(db: Db) {
  const { and, eq, sql } = drizzleOrm();
  const { configurationProjects: projects, configurations } = configurationTables();
  const [accountId, projectId] = [sql.placeholder("accountId"), sql.placeholder("projectId")];
  return {
    project: db.select().from(projects).where(and(eq(projects.accountId, accountId), eq(projects.projectId, projectId))).prepare(),
    rows: db.select().from(configurations).where(and(eq(configurations.accountId, accountId), eq(configurations.projectId, projectId))).prepare(),
  };
}

function loadState(reads: ReturnType<typeof prepareStateReads>, accountId: string, projectId: string): ProjectConfigurationState {
  const project = reads.project.get({ accountId, projectId });
  const rows = project ? reads.rows.all({ accountId, projectId }) : [];
  return configurationStateOf(projectId, project, rows);
}

function saveState(tx: Tx, accountId: string, state: ProjectConfigurationState, changedIds: string[]): void {
  const { configurationProjects: projects, configurations } = configurationTables();
  const { project, configurations: rows } = configurationRowsOf(state, changedIds, accountId);
  tx.insert(projects).values(project).onConflictDoUpdate({ target: [projects.accountId, projects.projectId], set: project }).run();
  for (const row of rows) {
    tx.insert(configurations).values(row).onConflictDoUpdate({ target: [configurations.accountId, configurations.projectId, configurations.configurationId], set: row }).run();
  }
}
