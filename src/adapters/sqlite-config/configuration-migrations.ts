import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";

const JOURNAL = join("meta", "_journal.json");
const CONFIGURATION_FOLDER = join("drizzle", "configuration");

function moduleDirectory(): string {
  // The CJS bundle has __dirname and no import.meta.url; the ESM build, tsx and jest have the reverse.
  if (typeof __dirname === "string") return __dirname;
  return dirname(fileURLToPath(import.meta.url));
}

/**
 * The checked-in configuration migrations (`drizzle/configuration`), found by walking up from
 * this module: the package root is above both `src/adapters/sqlite-config/` (tsx, jest) and the
 * bundled `dist/` (the package ships `drizzle/`). `null` when it is nowhere above.
 *
 * @example
 * const folder = findConfigurationMigrationsFolder(); // "/…/steamharness/drizzle/configuration"
 */
export function findConfigurationMigrationsFolder(start: string = moduleDirectory()): string | null {
  let directory = start;
  for (let depth = 0; depth < 8; depth++) {
    const candidate = join(directory, CONFIGURATION_FOLDER);
    if (existsSync(join(candidate, JOURNAL))) return candidate;
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  return null;
}

const MIGRATION_ATTEMPTS = 4;

/**
 * Applies the configuration migrations. Several hosts (CLI, MCP host) may open a new file at the
 * same moment; the loser of that race sees "table exists" or SQLITE_BUSY, and a retry then finds
 * the migrations recorded and applies nothing.
 *
 * @example
 * migrateConfigurationDatabase(db, findConfigurationMigrationsFolder()!);
 */
export function migrateConfigurationDatabase(db: BetterSQLite3Database, migrationsFolder: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      migrate(db, { migrationsFolder });
      return;
    } catch (error) {
      if (attempt >= MIGRATION_ATTEMPTS) throw error;
    }
  }
}
