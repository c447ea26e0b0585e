import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { requireMigrationsFolder } from "../../system/migrations-folder.js";
import { drizzleBetterSqlite3 } from "../shared/drizzle-modules.js";
import { imageOf } from "../shared/migrations.js";
import { openSqlite } from "../shared/sqlite-connection.js";

/** An open in-memory database: the connection, its drizzle handle, the closed flag the store calls check, and `close()`. */
export interface MemoryDatabase {
  client: Database.Database;
  db: BetterSQLite3Database;
  state: { closed: boolean };
  /** Frees the database; later calls fail with `storage_failure`. Idempotent. */
  close(): Promise<void>;
}

/**
 * An in-memory SQLite database with the schema of the files of `migrations` (`""` the store,
 * `"configuration"`, `"mcp-tasks"`): the memory variants of the stores no run path creates (API
 * keys, configurations, accounts, MCP tasks) are the SQLite stores on one (ARCH-8), with SQLite's
 * rules by construction and nothing on disk. Why a copy of an image: the migrations run once per
 * process, in memory. (The run path's stores, `MemoryStorage`, stay in maps: a fresh database costs
 * ~1.5 ms and a SQL step several times a map's.)
 *
 * @example
 * const { db, state, close } = openMemoryDatabase("configuration");
 */
export function openMemoryDatabase(migrations: string): MemoryDatabase {
  const client = openSqlite(imageOf(requireMigrationsFolder(migrations, "sqlite")));
  // Temporary tables and sort spills in memory too (SQLite's default puts them in files): nothing on disk.
  client.pragma("temp_store = MEMORY");
  const state = { closed: false };
  return {
    client,
    db: drizzleBetterSqlite3().drizzle({ client }),
    state,
    async close() {
      if (state.closed) return;
      state.closed = true;
      client.close();
    },
  };
}
