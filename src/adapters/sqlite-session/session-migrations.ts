import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";

const JOURNAL = join("meta", "_journal.json");
const SESSION_FOLDER = join("drizzle", "session");

function moduleDirectory(): string {
  // The CJS bundle has __dirname and no import.meta.url; the ESM build, tsx and jest have the reverse.
  if (typeof __dirname === "string") return __dirname;
  return dirname(fileURLToPath(import.meta.url));
}

let cachedFolder: string | undefined;

/**
 * The checked-in session migration folder (`drizzle/session`), found by walking up from this
 * module: that is the package root both from `src/adapters/sqlite-session/` (tsx, jest) and from
 * the bundled `dist/` (the package ships `drizzle/`). Returns `null` when it is nowhere above.
 *
 * @example
 * const folder = findSessionMigrationsFolder(); // "/…/steamharness/drizzle/session"
 */
export function findSessionMigrationsFolder(start: string = moduleDirectory()): string | null {
  if (cachedFolder !== undefined && start === moduleDirectory()) return cachedFolder;
  let directory = start;
  for (let depth = 0; depth < 8; depth++) {
    const candidate = join(directory, SESSION_FOLDER);
    if (existsSync(join(candidate, JOURNAL))) {
      if (start === moduleDirectory()) cachedFolder = candidate;
      return candidate;
    }
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  return null;
}

/** How often a migration that lost a race with another process opening the same new file is retried. */
const MIGRATION_ATTEMPTS = 3;

/**
 * Brings a session database to the current schema with drizzle's migrator. Two processes may open
 * the same new session file at once; the loser of that race sees "table exists" or SQLITE_BUSY,
 * and a retry then finds the migrations recorded and applies nothing.
 *
 * @example
 * migrateSessionDatabase(drizzle({ client: new Database(path) }), findSessionMigrationsFolder()!);
 */
export function migrateSessionDatabase(db: BetterSQLite3Database, migrationsFolder: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      migrate(db, { migrationsFolder });
      return;
    } catch (error) {
      if (attempt >= MIGRATION_ATTEMPTS) throw error;
    }
  }
}

const countByFolder = new Map<string, number>();

/** How many migrations the folder's journal lists, read once per process and folder. */
function journalLength(migrationsFolder: string): number {
  let count = countByFolder.get(migrationsFolder);
  if (count === undefined) {
    const journal = JSON.parse(readFileSync(join(migrationsFolder, JOURNAL), "utf8")) as { entries: unknown[] };
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
