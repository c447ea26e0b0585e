/**
 * The KV port written once (ARCH-3): validation, the listing's cursor, keyset paging and the
 * `update` callback's error, over a family's {@link KvRows}.
 */
import { STORE_LIMITS } from "../../../domain/limits.js";
import { decodeKeyCursor, listingId } from "../../../domain/page-cursor.js";
import { checkKvKey, checkKvNamespace, checkPageLimit, checkPrefix, serializeKvValue, type JsonValue } from "../../../domain/store-input.js";
import type { KvEntry, KvNamespace, KvStore } from "../../../ports/kv-store.js";
import { pageOf, type Awaitable, type StoreCall } from "./store-call.js";

/** A stored KV row: the value as JSON text. */
export interface KvRow {
  key: string;
  value: string;
  updatedAt: number;
}

/**
 * Row access of the KV port. Keys and namespaces arrive checked; values are JSON text. Rows stamp
 * `updatedAt` from their own clock.
 */
export interface KvRows {
  /** The row of `key`, or null/undefined when absent. */
  read(ns: KvNamespace, key: string): Awaitable<Omit<KvRow, "key"> | null | undefined>;
  /** Creates or replaces the row. */
  write(ns: KvNamespace, key: string, value: string): Awaitable<void>;
  /** Removes the row; `true` when it existed. */
  remove(ns: KvNamespace, key: string): Awaitable<boolean>;
  /** At most `limit` rows whose keys start with `prefix`, strictly after `after` when given, in UTF-16 order. */
  list(ns: KvNamespace, page: { prefix: string; after?: string; limit: number }): Awaitable<KvRow[]>;
  /**
   * Replaces the row's value by `change(current)` (`null` deletes) as one atomic step no other
   * writer, in any process, interleaves with. An error thrown by `change` undoes everything.
   */
  modify(ns: KvNamespace, key: string, change: (current: string | null) => string | null): Awaitable<void>;
}

const entry = (key: string, row: Omit<KvRow, "key">): KvEntry => ({ key, value: JSON.parse(row.value) as JsonValue, updatedAt: row.updatedAt });

/**
 * The KV port over `rows`, each step run through `call`.
 *
 * @example
 * const kv = createKvStore(sqlKvRows(driver), sqliteCall(state));
 */
export function createKvStore(rows: KvRows, call: StoreCall): KvStore {
  return {
    async get(nsInput, keyInput) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      const row = await call("kv get", () => rows.read(ns, key));
      return row ? entry(key, row) : null;
    },

    async set(nsInput, keyInput, value) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      const json = serializeKvValue(value);
      await call("kv set", () => rows.write(ns, key, json));
    },

    async delete(nsInput, keyInput) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      return call("kv delete", () => rows.remove(ns, key));
    },

    async list(nsInput, options = {}) {
      const ns = checkKvNamespace(nsInput);
      const prefix = checkPrefix("prefix", options.prefix, STORE_LIMITS.kvKey);
      const limit = checkPageLimit(options.limit);
      const listing = listingId({ kind: "kv", projectId: ns.projectId, conversationId: ns.conversationId, prefix });
      const after = decodeKeyCursor(listing, options.cursor);
      const found = await call("kv list", () => rows.list(ns, { prefix, ...(after === undefined ? {} : { after }), limit: limit + 1 }));
      return pageOf(found, limit, listing, (row) => entry(row.key, row), (item) => item.key);
    },

    async update(nsInput, keyInput, fn) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      // The callback's own error must reach the caller unwrapped; remember it to tell it apart.
      let callbackFailure: { error: unknown } | undefined;
      let stored: JsonValue | null = null;
      const change = (current: string | null): string | null => {
        let next: JsonValue | undefined;
        try {
          next = fn(current === null ? null : (JSON.parse(current) as JsonValue));
        } catch (error) {
          callbackFailure = { error };
          throw error;
        }
        if (next === undefined) return (stored = null);
        const json = serializeKvValue(next);
        stored = JSON.parse(json) as JsonValue;
        return json;
      };
      try {
        await call("kv update", () => rows.modify(ns, key, change));
      } catch (error) {
        if (callbackFailure) throw callbackFailure.error;
        throw error;
      }
      return stored;
    },
  };
}
