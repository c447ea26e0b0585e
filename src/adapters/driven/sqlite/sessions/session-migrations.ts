import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { ensureMigrated, findMigrationsFolder, migrateWithRetry } from "../shared/migrations.js";

let cachedFolder: string | null | undefined;

/**
 * The checked-in session migration folder (`drizzle/session`), looked up once per process;
 * `null` when missing.
 *
 * @example
 * const folder = findSessionMigrationsFolder(); // "/…/steamharness/drizzle/session"
 */
export function findSessionMigrationsFolder(start?: string): string | null {
  if (start !== undefined) return findMigrationsFolder("session", start);
  if (cachedFolder === undefined) cachedFolder = findMigrationsFolder("session");
  return cachedFolder;
}

/**
 * Brings a session database to the current schema; a lost race with another process opening the
 * same new file is retried.
 *
 * @example
 * migrateSessionDatabase(drizzle({ client: new Database(path) }), findSessionMigrationsFolder()!);
 */
export function migrateSessionDatabase(db: BetterSQLite3Database, migrationsFolder: string): void {
  migrateWithRetry(db, migrationsFolder, { attempts: 3 });
}

/**
 * Migrates a session database only when it is behind the checked-in journal. After migrating,
 * `PRAGMA user_version` records how many journal entries the file has, so opening an up-to-date
 * session — the common case, and the one a paused session is read in — costs one pragma instead
 * of reading and hashing every migration file. drizzle's `__drizzle_migrations` table stays the
 * authority: when the version is behind, drizzle's migrator decides what to apply.
 *
 * `initialise` (idempotent) runs after migrating and before the version is recorded.
 *
 * @example
 * ensureSessionSchema(db, client, findSessionMigrationsFolder()!, () => insertMetaRow());
 */
export function ensureSessionSchema(
  db: BetterSQLite3Database,
  client: Database.Database,
  migrationsFolder: string,
  initialise: () => void = () => {},
): void {
  ensureMigrated(client, migrationsFolder, () => migrateSessionDatabase(db, migrationsFolder), initialise);
}
