import type Database from "better-sqlite3";
import type { Clock } from "../../../../ports/clock.js";
import type { SqlDriver } from "../../kernel/sql-driver.js";
import type { StoreCall } from "../../kernel/store-call.js";
import { requireMigrationsFolder } from "../../system/migrations-folder.js";
import { drizzleBetterSqlite3 } from "../shared/drizzle-modules.js";
import { imageOf } from "../shared/migrations.js";
import { openSqlite } from "../shared/sqlite-connection.js";
import { sqliteSqlDriver } from "../shared/sqlite-sql-driver.js";
import { sqliteCall } from "../store/sqlite-support.js";

/** An open in-memory database: the kernel's SQL driver on it, the store call, and `close()`. */
export interface MemoryDatabase<T> {
  driver: SqlDriver<T>;
  call: StoreCall;
  client: Database.Database;
  /** Frees the database; later calls fail with `storage_failure`. Idempotent. */
  close(): Promise<void>;
}

/**
 * An in-memory SQLite database with the schema of the files of `migrations` (`""` the store,
 * `"configuration"`, `"mcp-tasks"`). The memory family's stores are the SQLite stores on such a
 * database (ARCH-8): one set of rules, SQLite's semantics by construction, and nothing on disk.
 * Why a copy of an image: the migrations run once per process (in memory), and a copy costs a
 * fraction of a millisecond, so a test can make a fresh store per case.
 *
 * @example
 * const { driver, call, close } = openMemoryDatabase("", storeTables(), createSystemClock());
 */
export function openMemoryDatabase<T>(migrations: string, tables: T, clock: Clock): MemoryDatabase<T> {
  const client = openSqlite(imageOf(requireMigrationsFolder(migrations, "sqlite")));
  // Temporary tables and sort spills in memory too (SQLite's default puts them in files): nothing on disk.
  client.pragma("temp_store = MEMORY");
  const state = { closed: false };
  return {
    driver: sqliteSqlDriver(drizzleBetterSqlite3().drizzle({ client }), tables, clock),
    call: sqliteCall(state),
    client,
    async close() {
      if (state.closed) return;
      state.closed = true;
      client.close();
    },
  };
}
