import type { Clock } from "../../../../ports/clock.js";
import type { KvStore } from "../../../../ports/kv-store.js";
import { createKvStore } from "../../kernel/kv-store.js";
import { sqlKvRows } from "../../kernel/sql-kv-rows.js";
import { createSystemClock } from "../../system/clock.js";
import { storeTables } from "../store/schema.js";
import { openMemoryDatabase } from "./memory-database.js";

/** The store ports of `MemoryStorage` that keep rows, on one in-memory store database. */
export interface MemoryStores {
  kv: KvStore;
  /** Frees the database; later calls fail with `storage_failure`. Idempotent. */
  close(): Promise<void>;
}

/**
 * The row-keeping stores of `MemoryStorage`: the SQLite store's kernel ports on one in-memory
 * database ({@link openMemoryDatabase}), so they behave as `createSqliteStorage`'s do.
 *
 * @example
 * const stores = openMemoryStores({ clock: createFixedClock(0) });
 * await stores.kv.set({ projectId: "p" }, "k", 1);
 * await stores.close();
 */
export function openMemoryStores(options: { clock?: Clock } = {}): MemoryStores {
  const { driver, call, close } = openMemoryDatabase("", storeTables(), options.clock ?? createSystemClock());
  return { kv: createKvStore(sqlKvRows(driver), call), close };
}
