/**
 * Opening the SQLite store file: WAL, busy timeout, migrations on open, and the migrations
 * folder lookup that works from `src/` (tsx, jest) and from the bundled `dist/`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { drizzleBetterSqlite3 } from "../shared/drizzle-modules.js";
import { ensureMigrated, migrateWithRetry } from "../shared/migrations.js";
import { requireMigrationsFolder } from "../../system/migrations-folder.js";
import { openSqlite } from "../shared/sqlite-connection.js";
import { wrapAdapterError } from "../../../../domain/errors.js";
import { storeTables, type StoreTables } from "./schema.js";
import { withSqliteRetry } from "./sqlite-support.js";

/** The drizzle handle of the store. */
export type StoreDatabase = BetterSQLite3Database<StoreTables>;

/** An open store database: the drizzle handle and the raw connection beneath it. */
export interface OpenedStoreDatabase {
  db: StoreDatabase;
  sqlite: Database.Database;
}

/** drizzle's bookkeeping table for this store (the session store keeps its own). */
export const STORE_MIGRATIONS_TABLE = "__steamharness_store_migrations";
const BUSY_TIMEOUT_MS = 10_000;
const MIGRATION_ATTEMPTS = 5;

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

function migrateStore(db: StoreDatabase, migrationsFolder: string): void {
  migrateWithRetry(db, migrationsFolder, { attempts: MIGRATION_ATTEMPTS, migrationsTable: STORE_MIGRATIONS_TABLE, wrap: (run) => withSqliteRetry("migration", run) });
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
 * Opens the store file of an adapter that lives beside the storage on the same file (API keys,
 * approvals): {@link openStoreDatabase} on `file` or `directory`'s `store.sqlite`, with the
 * `state` its calls check and a `close()` that closes the connection once.
 *
 * @example
 * const { db, state, close } = openStoreFile({ directory: "./data/store" });
 */
export function openStoreFile(options: StoreFileOptions): OpenedStoreDatabase & { state: { closed: boolean }; close(): Promise<void> } {
  if (options.file === undefined && options.directory !== undefined) {
    try {
      mkdirSync(options.directory, { recursive: true });
    } catch (error) {
      throw wrapAdapterError("sqlite", `cannot create store directory ${options.directory}`, error);
    }
  }
  const file = options.file ?? join(options.directory ?? ".", STORE_DATABASE_FILE);
  const { db, sqlite } = openStoreDatabase(file, options.migrationsFolder ?? findStoreMigrationsFolder());
  const state = { closed: false };
  const close = async () => {
    if (state.closed) return;
    state.closed = true;
    sqlite.close();
  };
  return { db, sqlite, state, close };
}

/**
 * Opens (creating if needed) the store database at `file`: busy timeout, WAL journal,
 * `synchronous = NORMAL` (durable across process crashes; WAL makes it safe), migrations.
 * Faults surface as `storage_failure` with `cause`.
 *
 * @example
 * const { db, sqlite } = openStoreDatabase("/data/store.sqlite", findStoreMigrationsFolder());
 */
export function openStoreDatabase(file: string, migrationsFolder: string): OpenedStoreDatabase {
  let sqlite: Database.Database | undefined;
  try {
    sqlite = withSqliteRetry("open", () => openSqlite(file));
    const connection = sqlite;
    // PRAGMAs have no drizzle equivalent; better-sqlite3's pragma() is the raw-SQL escape hatch.
    connection.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const mode = withSqliteRetry("enable WAL", () => connection.pragma("journal_mode = WAL", { simple: true }));
    if (mode !== "wal") throw new Error(`journal_mode is ${String(mode)}, expected wal`);
    connection.pragma("synchronous = NORMAL");
    const db = drizzleBetterSqlite3().drizzle({ client: connection, schema: storeTables() });
    ensureMigrated(connection, migrationsFolder, () => migrateStore(db, migrationsFolder));
    return { db, sqlite: connection };
  } catch (error) {
    sqlite?.close();
    throw wrapAdapterError("sqlite", `cannot open store ${file}`, error);
  }
}
