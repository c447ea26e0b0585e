import { readFileSync } from "node:fs";
import type Database from "better-sqlite3";
import { join } from "node:path";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { MIGRATIONS_JOURNAL } from "../../system/migrations-folder.js";
import { drizzleMigrator } from "./drizzle-modules.js";

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
