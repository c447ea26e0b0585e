import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
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
