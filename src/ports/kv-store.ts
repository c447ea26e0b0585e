import type { JsonValue } from "../domain/json.js";
import type { Page, PageOptions } from "./page.js";

/**
 * Where a KV entry lives. Without `conversationId` it is project scope; with it, conversation
 * scope. The two scopes never see each other's keys.
 */
export interface KvNamespace {
  projectId: string;
  conversationId?: string;
}

/** A stored KV entry. `updatedAt` is epoch milliseconds from the store's clock. */
export interface KvEntry {
  key: string;
  value: JsonValue;
  updatedAt: number;
}

/** Options of {@link KvStore.list}. */
export interface KvListOptions extends PageOptions {
  /** Only keys starting with this prefix (compared as UTF-16 code units). */
  prefix?: string;
}

/**
 * The key-value store port. Keys are non-empty strings of at most `STORE_LIMITS.kvKey` UTF-16
 * units; values are JSON ({@link JsonValue}) of at most `STORE_LIMITS.kvValueBytes` bytes
 * serialised. Invalid keys or values fail with `input_validation` and change nothing.
 * Adapter faults surface as `storage_failure` with `cause`.
 */
export interface KvStore {
  /** The entry, or `null` when the key is absent. */
  get(ns: KvNamespace, key: string): Promise<KvEntry | null>;
  /** Creates or replaces the entry. Idempotent for the same value. */
  set(ns: KvNamespace, key: string, value: JsonValue): Promise<void>;
  /** Removes the entry; resolves `true` when it existed, `false` otherwise. */
  delete(ns: KvNamespace, key: string): Promise<boolean>;
  /**
   * Keys in ascending UTF-16 code-unit order, keyset-paginated: a page continues strictly after
   * the last key of the previous page, so concurrent inserts never duplicate or skip an entry
   * that existed throughout.
   */
  list(ns: KvNamespace, options?: KvListOptions): Promise<Page<KvEntry>>;
  /**
   * Atomic read-modify-write: `fn` gets the current value (`null` when absent) and returns the
   * new value, or `undefined` to delete. No other writer (in any process) interleaves. `fn` must
   * be synchronous and free of side effects; if it throws, nothing changes and the error is
   * rethrown. Resolves the value now stored (`null` when deleted).
   */
  update(ns: KvNamespace, key: string, fn: (current: JsonValue | null) => JsonValue | undefined): Promise<JsonValue | null>;
}
