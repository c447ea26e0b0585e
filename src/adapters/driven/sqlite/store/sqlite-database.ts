/**
 * Opening the SQLite store file (`store.sqlite`) as every shared SQLite file opens: WAL, busy
 * timeout, migrations on open, from `src/` (tsx, jest) and from the bundled `dist/`.
 */
import { join } from "node:path";
import type { Clock } from "../../../../ports/clock.js";
import { openMigratedSqlite } from "../shared/migrations.js";
import { shareSqlite } from "../shared/sqlite-connection.js";
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

/** The WAL pages past which a commit on the store file checkpoints (SQLite's default: 1,000). */
const WAL_CHECKPOINT_PAGES = 4096;

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
 * migrated once per process), a WAL checkpoint past 4,096 pages (below): the kernel's
 * {@link SqliteStore} on the store's tables, on the one connection this process holds to the
 * file ({@link shareSqlite}); its `close()` gives its share back, and the last one closes the
 * connection. Faults surface as `storage_failure` with `cause`.
 *
 * @example
 * const { driver, call, close } = openStoreFile({ directory: "./data/store" });
 */
export function openStoreFile(options: StoreFileOptions, clock?: Clock): SqliteStore<StoreTables> {
  const file = options.file ?? join(options.directory ?? ".", STORE_DATABASE_FILE);
  // One connection per store file per process (shareSqlite): the storage, the approval store and the API-key store of one file share it.
  const opened = shareSqlite(file, () => {
    const fresh = openMigratedSqlite(file, { migrations: "", migrationsTable: STORE_MIGRATIONS_TABLE, busyTimeoutMs: 10_000, what: "store", ...(options.migrationsFolder === undefined ? {} : { migrationsFolder: options.migrationsFolder }) });
    // GOV-7 (issue 47): SQLite's default checkpoints inside the commit that takes the WAL past 1,000
    // pages, syncing the WAL and the file in that caller's call: on this file one gated call in ~165,
    // six of bench A's 1,000, its p99. At 4,096 one in ~680. `synchronous` is unchanged: a killed process
    // loses no commit; a power loss, what the WAL holds since its last checkpoint (now up to 4,096 pages).
    fresh.client.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    return fresh;
  });
  return sqliteStoreOn(opened, storeTables(), clock);
}
