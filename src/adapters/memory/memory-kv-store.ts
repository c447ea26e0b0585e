import { decodeKeyCursor, encodeCursor, listingId } from "../../domain/page-cursor.js";
import {
  checkKvKey,
  checkKvNamespace,
  checkPageLimit,
  checkPrefix,
  serializeKvValue,
  type JsonValue,
} from "../../domain/store-input.js";
import { STORE_LIMITS } from "../../domain/limits.js";
import type { Clock } from "../../ports/clock.js";
import type { KvEntry, KvListOptions, KvNamespace, KvStore } from "../../ports/kv-store.js";
import type { Page } from "../../ports/page.js";
import { createSystemClock } from "../system/clock.js";
import { SortedKeys, collectPage } from "./sorted-keys.js";

/** Options of {@link createMemoryKvStore}. */
export interface MemoryKvStoreOptions {
  clock?: Clock;
}

interface StoredEntry {
  json: string;
  updatedAt: number;
}

interface Scope {
  entries: Map<string, StoredEntry>;
  keys: SortedKeys;
}

function scopeKey(ns: KvNamespace): string {
  return JSON.stringify([ns.projectId, ns.conversationId ?? null]);
}

/**
 * The in-memory reference KV store. Values are kept serialised, so callers never share
 * objects with the store; listings seek in a sorted key index.
 *
 * @example
 * const kv = createMemoryKvStore();
 * await kv.set({ projectId: "p" }, "greeting", "hello");
 */
export function createMemoryKvStore(options: MemoryKvStoreOptions = {}): KvStore {
  const clock = options.clock ?? createSystemClock();
  const scopes = new Map<string, Scope>();

  const scopeOf = (ns: KvNamespace, create: boolean): Scope | undefined => {
    const id = scopeKey(ns);
    let scope = scopes.get(id);
    if (!scope && create) {
      scope = { entries: new Map(), keys: new SortedKeys() };
      scopes.set(id, scope);
    }
    return scope;
  };

  const write = (ns: KvNamespace, key: string, json: string): void => {
    const scope = scopeOf(ns, true)!;
    if (!scope.entries.has(key)) scope.keys.add(key);
    scope.entries.set(key, { json, updatedAt: clock.now() });
  };

  const remove = (ns: KvNamespace, key: string): boolean => {
    const scope = scopeOf(ns, false);
    if (!scope || !scope.entries.delete(key)) return false;
    scope.keys.remove(key);
    return true;
  };

  return {
    async get(nsInput, keyInput) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      const stored = scopeOf(ns, false)?.entries.get(key);
      return stored ? { key, value: JSON.parse(stored.json) as JsonValue, updatedAt: stored.updatedAt } : null;
    },

    async set(nsInput, keyInput, value) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      write(ns, key, serializeKvValue(value));
    },

    async delete(nsInput, keyInput) {
      return remove(checkKvNamespace(nsInput), checkKvKey(keyInput));
    },

    async list(nsInput, listOptions: KvListOptions = {}): Promise<Page<KvEntry>> {
      const ns = checkKvNamespace(nsInput);
      const prefix = checkPrefix("prefix", listOptions.prefix, STORE_LIMITS.kvKey);
      const limit = checkPageLimit(listOptions.limit);
      const listing = listingId({ kind: "kv", projectId: ns.projectId, conversationId: ns.conversationId, prefix });
      const after = decodeKeyCursor(listing, listOptions.cursor);
      const scope = scopeOf(ns, false);
      if (!scope) return { items: [], nextCursor: null };
      const start = after === undefined ? scope.keys.seek(prefix) : scope.keys.seek(after, true);
      const { page, more } = collectPage(scope.keys, start, prefix, limit);
      const items = page.map((key) => {
        const stored = scope.entries.get(key)!;
        return { key, value: JSON.parse(stored.json) as JsonValue, updatedAt: stored.updatedAt };
      });
      return { items, nextCursor: more ? encodeCursor(listing, page[page.length - 1]) : null };
    },

    async update(nsInput, keyInput, fn) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      const stored = scopeOf(ns, false)?.entries.get(key);
      const next = fn(stored ? (JSON.parse(stored.json) as JsonValue) : null);
      if (next === undefined) {
        remove(ns, key);
        return null;
      }
      const json = serializeKvValue(next);
      write(ns, key, json);
      return JSON.parse(json) as JsonValue;
    },
  };
}
