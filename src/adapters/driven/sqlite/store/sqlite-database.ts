/**
 * Opening the SQLite store file (`store.sqlite`) as every shared SQLite file opens: WAL, busy
 * timeout, migrations on open, from `src/` (tsx, jest) and from the bundled `dist/`.
 */
import { join } from "node:path";
import type { Clock } from "../../../../ports/clock.js";
import { openMigratedSqlite } from "../shared/migrations.js";
import { checkpointWhenIdle } from "../shared/sqlite-connection.js";
import { sqliteStoreOn, type SqliteStore } from "../shared/sqlite-sql-driver.js";
import { storeTables, type StoreTables } from "./schema.js";
import { requireMigrationsFolder } from "../../system/migrations-folder.js";

/** drizzle's bookkeeping table for this store (the session store keeps its own). */
export const STORE_MIGRATIONS_TABLE = "__steamharness_store_migrations";

/**
 * The checked-in store migrations (`drizzle/` with `meta/_journal.json`). Throws `internal` when
 * the folder is missing (a broken install).
 *
 * @example
 * const folder = findStoreMigrationsFolder(); // "/…/steamharness/drizzle"
 */
export function findStoreMigrationsFolder(start?: string): string {
  return requireMigrationsFolder("", "sqlite", start);
}

/** The database file inside a store directory. */
export const STORE_DATABASE_FILE = "store.sqlite";

/** Where a store-file adapter opens: an explicit file, or a store directory's `store.sqlite`. */
export interface StoreFileOptions {
  /** The store's database file (a store directory's `store.sqlite`). */
  file?: string;
  /** A store directory (created if missing): its `store.sqlite` is used. */
  directory?: string;
  /** The drizzle migrations folder; found next to the package by default. */
  migrationsFolder?: string;
}

/**
 * Opens the store file of `file` or `directory`'s `store.sqlite` (creating both if needed) with
 * {@link openMigratedSqlite}: WAL, `synchronous = NORMAL` (durable across process crashes; WAL
 * makes it safe), a 10 s busy timeout, migrations on open (a new file written from the image
 * migrated once per process), WAL checkpoints when the connection is idle ({@link checkpointWhenIdle}):
 * the kernel's {@link SqliteStore} on the store's tables. Faults surface as `storage_failure` with `cause`.
 *
 * @example
 * const { driver, call, close } = openStoreFile({ directory: "./data/store" });
 */
export function openStoreFile(options: StoreFileOptions, clock?: Clock): SqliteStore<StoreTables> {
  const file = options.file ?? join(options.directory ?? ".", STORE_DATABASE_FILE);
  const migrations = { migrations: "", migrationsTable: STORE_MIGRATIONS_TABLE, busyTimeoutMs: 10_000, what: "store" };
  const store = sqliteStoreOn(openMigratedSqlite(file, { ...migrations, ...(options.migrationsFolder === undefined ? {} : { migrationsFolder: options.migrationsFolder }) }), storeTables(), clock);
  const touch = checkpointWhenIdle(store.client);
  return { ...store, call: (what, step) => (touch(), store.call(what, step)) };
}
