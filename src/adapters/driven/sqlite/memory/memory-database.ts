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
 * `make()`'s object, made when one of its members is first read (methods bound to it): what is
 * built on a {@link MemoryDatabase} costs nothing until it is used.
 *
 * @example
 * const rows = onFirstUse(() => createSqliteBudgetRows(context)); // prepares nothing yet
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
 * `"configuration"`, `"mcp-tasks"`, `"session-host"`): the memory family's stores are the SQLite
 * stores on one (ARCH-8), with SQLite's rules by construction and nothing on disk. Why a copy of
 * an image: the migrations run once per process, in memory. The copy is made on the first
 * statement (~1.5 ms with the schema's parse), so a `MemoryStorage` pays only for the stores it
 * uses; its KV store, on every run's path, stays in maps (a SQL step costs several times a map's).
 *
 * @example
 * const { db, state, close } = openMemoryDatabase("configuration");
 */
export function openMemoryDatabase(migrations: string): MemoryDatabase {
  let opened: Database.Database | undefined;
  const client = onFirstUse(() => {
    opened = openSqlite(imageOf(requireMigrationsFolder(migrations, "sqlite")));
    // Temporary tables and sort spills in memory too (SQLite's default puts them in files): nothing on disk.
    opened.pragma("temp_store = MEMORY");
    return opened;
  });
  const state = { closed: false };
  return {
    client,
    db: drizzleBetterSqlite3().drizzle({ client }),
    state,
    async close() {
      if (state.closed) return;
      state.closed = true;
      opened?.close();
    },
  };
}
