import type { Clock } from "../../../../ports/clock.js";
import { requireMigrationsFolder } from "../../system/migrations-folder.js";
import { drizzleBetterSqlite3 } from "../shared/drizzle-modules.js";
import { imageOf } from "../shared/migrations.js";
import { openSqlite } from "../shared/sqlite-connection.js";
import { sqliteStoreOn, type SqliteStore } from "../shared/sqlite-sql-driver.js";

/**
 * An in-memory SQLite database with the schema of the files of `migrations` (`""` the store,
 * `"configuration"`, `"mcp-tasks"`), as the kernel's stores take it on `tables`: the memory
 * variants of the stores no run path creates (API keys, configurations, accounts, MCP tasks) are
 * the SQLite stores on one (ARCH-8), with SQLite's rules by construction and nothing on disk;
 * `close()` frees it, and later calls fail with `storage_failure`. Why a copy of an image: the
 * migrations run once per process, in memory. (The run path's stores, `MemoryStorage`, stay in
 * maps: a fresh database costs ~1.5 ms and a SQL step several times a map's.)
 *
 * @example
 * const store = openMemoryDatabase("configuration", configurationTables());
 */
export function openMemoryDatabase<T>(migrations: string, tables: T, clock?: Clock): SqliteStore<T> {
  const client = openSqlite(imageOf(requireMigrationsFolder(migrations, "sqlite")));
  // Temporary tables and sort spills in memory too (SQLite's default puts them in files): nothing on disk.
  client.pragma("temp_store = MEMORY");
  return sqliteStoreOn({ client, db: drizzleBetterSqlite3().drizzle({ client }) }, tables, clock);
}
