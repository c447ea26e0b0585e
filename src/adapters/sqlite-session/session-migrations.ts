import { readFileSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { findMigrationsFolder, MIGRATIONS_JOURNAL, migrateWithRetry } from "../sqlite/migrations.js";

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
  const expected = journalLength(migrationsFolder);
  // PRAGMA user_version has no drizzle builder.
  if (Number(client.pragma("user_version", { simple: true })) >= expected) return;
  migrateSessionDatabase(db, migrationsFolder);
  // Rows every session needs are written before the version, so a current version implies them.
  initialise();
  client.pragma(`user_version = ${expected}`);
}
