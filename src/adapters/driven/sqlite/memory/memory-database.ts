import type { Clock } from "../../../../ports/clock.js";
import { createSystemClock } from "../../system/clock.js";
import { requireMigrationsFolder } from "../../system/migrations-folder.js";
import { drizzleBetterSqlite3 } from "../shared/drizzle-modules.js";
import { imageOf } from "../shared/migrations.js";
import { openSqlite } from "../shared/sqlite-connection.js";
import { sqliteStoreOn, type SqliteStore } from "../shared/sqlite-sql-driver.js";

/**
 * `make()`'s object, made when one of its members is first read (methods bound to it): what is
 * built on a memory database costs nothing until it is used.
 *
 * @example
 * const rows = onFirstUse(() => createSqliteBudgetRows(store)); // prepares nothing yet
 */
export function onFirstUse<T extends object>(make: () => T): T {
  let made: T | undefined;
  return new Proxy({} as T, {
    get(_, name) {
      made ??= make();
      const value: unknown = Reflect.get(made, name);
      return typeof value === "function" ? value.bind(made) : value;
    },
  });
}

/**
 * An in-memory SQLite database with the schema of the files of `migrations` (`""` the store,
 * `"configuration"`, `"mcp-tasks"`), as the kernel's stores take it on `tables`: the memory
 * family's stores are the SQLite stores on one (ARCH-8), with SQLite's rules by construction and
 * nothing on disk; `close()` frees it, and later calls fail with `storage_failure`. Why a copy of
 * an image: the migrations run once per process, in memory. The copy is made on the first
 * statement (~0.4 ms with the schema's parse), so a `MemoryStorage` pays only for the stores it
 * uses; its KV store, on every run's path, stays in maps (a SQL step costs several times a map's).
 *
 * @example
 * const store = openMemoryDatabase("configuration", configurationTables());
 */
export function openMemoryDatabase<T>(migrations: string, tables: T, clock: Clock = createSystemClock()): SqliteStore<T> {
  const client = onFirstUse(() => {
    const opened = openSqlite(imageOf(requireMigrationsFolder(migrations, "sqlite")));
    // Temporary tables and sort spills in memory too (SQLite's default puts them in files): nothing on disk.
    opened.pragma("temp_store = MEMORY");
    return opened;
  });
  // Closed before its first statement, it is opened to be closed (well under a millisecond).
  return sqliteStoreOn({ client, db: drizzleBetterSqlite3().drizzle({ client }) }, tables, clock);
}
