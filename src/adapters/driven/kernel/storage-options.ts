/**
 * What every storage family's constructor accepts beside its own connection options (memory,
 * SQLite, PostgreSQL), declared once so the three cannot drift apart, and the ports both SQL
 * storages build alike.
 */
import type { Clock } from "../../../ports/clock.js";
import type { IdSource } from "../../../ports/id-source.js";
import type { Storage } from "../../../ports/storage.js";
import { createKnowledgeStore, type KnowledgeSearch } from "./knowledge-store.js";
import { createKvStore } from "./kv-store.js";
import { createPersistentValueStore } from "./persistent-value-store.js";
import type { SqlDriver } from "./sql-driver.js";
import { sqlKvRows, sqlTokenUsageRecorder } from "./sql-kv-rows.js";
import type { StoreCall } from "./store-call.js";

/** The options every storage shares. */
export interface StorageOptions {
  /** Time source for `updatedAt`/`createdAt`; defaults to the system clock. */
  clock?: Clock;
  /** Id source for managed files; defaults to random UUIDs. */
  idSource?: IdSource;
  /** Largest managed file; defaults to 64 MiB. */
  maxFileBytes?: number;
}

/**
 * The ports every SQL storage builds alike on its row driver: KV, knowledge (with the dialect's
 * full-text search), persistent values and token usage, each step through the family's `call`.
 * One driver serves them all: its statements are prepared once and shared by the KV store and
 * every token-usage recorder (a run makes one per node context).
 *
 * @example
 * const ports = sqlStoragePorts(sqliteSqlDriver(db, storeTables(), clock), sqliteCall(state), sqliteFullText);
 */
export function sqlStoragePorts(driver: SqlDriver, call: StoreCall, fullText: KnowledgeSearch): Required<Pick<Storage, "kv" | "knowledge" | "values" | "tokenUsage">> {
  return {
    kv: createKvStore(sqlKvRows(driver), call),
    knowledge: createKnowledgeStore(driver, call, fullText),
    values: createPersistentValueStore(driver, call),
    tokenUsage: (namespace) => sqlTokenUsageRecorder(driver, call, namespace),
  };
}
