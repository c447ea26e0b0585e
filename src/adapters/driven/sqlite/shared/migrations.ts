import { mkdirSync, readFileSync } from "node:fs";
import type Database from "better-sqlite3";
import { dirname, join } from "node:path";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import { findMigrationsFolder, MIGRATIONS_JOURNAL } from "../../system/migrations-folder.js";
import { drizzleBetterSqlite3, drizzleMigrator } from "./drizzle-modules.js";
import { openSqlite } from "./sqlite-connection.js";

export { findMigrationsFolder, MIGRATIONS_JOURNAL } from "../../system/migrations-folder.js";

/**
 * Applies pending migrations with drizzle's migrator, retrying a lost race: two processes
 * opening the same new file at once both read the applied list outside the migration
 * transaction, so the loser fails with "already exists" (or SQLITE_BUSY) and a retry finds
 * everything applied.
 *
 * @example
 * migrateWithRetry(db, findMigrationsFolder("configuration")!, { attempts: 4 });
 */
export function migrateWithRetry<TSchema extends Record<string, unknown>>(
  db: BetterSQLite3Database<TSchema>,
  migrationsFolder: string,
  options: { attempts?: number; migrationsTable?: string; wrap?: (run: () => void) => void } = {},
): void {
  const attempts = options.attempts ?? 4;
  const { migrate } = drizzleMigrator();
  const run = () => migrate(db, { migrationsFolder, ...(options.migrationsTable ? { migrationsTable: options.migrationsTable } : {}) });
  for (let attempt = 1; ; attempt++) {
    try {
      if (options.wrap) options.wrap(run);
      else run();
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
    }
  }
}

const countByFolder = new Map<string, number>();

/** How many migrations the folder's journal lists, read once per process and folder. */
function journalLength(migrationsFolder: string): number {
  let count = countByFolder.get(migrationsFolder);
  if (count === undefined) {
    const journal = JSON.parse(readFileSync(join(migrationsFolder, MIGRATIONS_JOURNAL), "utf8")) as { entries: unknown[] };
    count = journal.entries.length;
    countByFolder.set(migrationsFolder, count);
  }
  return count;
}

/**
 * Runs `migrate` only when the database is behind the folder's journal. After migrating,
 * `PRAGMA user_version` records how many journal entries the file has, so opening an up-to-date
 * database — the common case, on every process start — costs one pragma instead of reading and
 * hashing every migration file. drizzle's migrations table stays the authority: when the version
 * is behind, drizzle's migrator decides what to apply. `initialise` (idempotent) runs after
 * migrating and before the version is recorded, so a current version implies its rows.
 *
 * @example
 * ensureMigrated(client, folder, () => migrateWithRetry(db, folder));
 */
export function ensureMigrated(client: Database.Database, migrationsFolder: string, migrate: () => void, initialise: () => void = () => {}): void {
  const expected = journalLength(migrationsFolder);
  // PRAGMA user_version has no drizzle builder.
  if (Number(client.pragma("user_version", { simple: true })) >= expected) return;
  migrate();
  initialise();
  client.pragma(`user_version = ${expected}`);
}

/** Options of {@link openMigratedSqlite}. */
export interface MigratedSqliteOptions {
  /** The checked-in migrations: `drizzle/<migrations>` of the package, unless `migrationsFolder` names one. */
  migrations: string;
  migrationsFolder?: string;
  /** How long a write waits for another process's write lock (default 5000 ms). */
  busyTimeoutMs?: number;
  /** What the file is, for the error message ("the task store"). */
  what: string;
}

/**
 * Opens (creating the file and its folder) a WAL-mode database several processes share and
 * brings it up to its migrations; a lost migration race is retried. A missing migrations folder
 * throws `internal`; any other fault `storage_failure` with `cause`.
 *
 * @example
 * const { client, db } = openMigratedSqlite("/data/mcp-tasks.sqlite", { migrations: "mcp-tasks", what: "the task store" });
 */
export function openMigratedSqlite(path: string, options: MigratedSqliteOptions): { client: Database.Database; db: BetterSQLite3Database } {
  const folder = options.migrationsFolder ?? findMigrationsFolder(options.migrations);
  if (folder === null) throw new SteamharnessError("internal", `[steamharness] [sqlite] drizzle/${options.migrations} migrations not found`);
  let client: Database.Database | undefined;
  try {
    mkdirSync(dirname(path), { recursive: true });
    client = openSqlite(path, { timeout: options.busyTimeoutMs ?? 5000 });
    // PRAGMAs are connection settings drizzle has no builder for.
    client.pragma("journal_mode = WAL");
    client.pragma("synchronous = NORMAL");
    const db = drizzleBetterSqlite3().drizzle({ client });
    ensureMigrated(client, folder, () => migrateWithRetry(db, folder));
    return { client, db };
  } catch (error) {
    client?.close();
    throw wrapAdapterError("sqlite", `cannot open ${options.what} ${path}`, error);
  }
}
