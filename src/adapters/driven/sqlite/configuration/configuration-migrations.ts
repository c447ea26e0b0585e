import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { findMigrationsFolder, migrateWithRetry } from "../shared/migrations.js";

/**
 * The checked-in configuration migrations (`drizzle/configuration`); `null` when missing.
 *
 * @example
 * const folder = findConfigurationMigrationsFolder(); // "/…/steamharness/drizzle/configuration"
 */
export function findConfigurationMigrationsFolder(start?: string): string | null {
  return findMigrationsFolder("configuration", start);
}

/**
 * Applies the configuration migrations. Several hosts (the CLI, the MCP server) may open a new file at the
 * same moment; a lost race is retried (see `migrateWithRetry`).
 *
 * @example
 * migrateConfigurationDatabase(db, findConfigurationMigrationsFolder()!);
 */
export function migrateConfigurationDatabase(db: BetterSQLite3Database, migrationsFolder: string): void {
  migrateWithRetry(db, migrationsFolder, { attempts: 4 });
}
