import { compareUtf16 } from "../../../domain/store-input.js";
import type { Clock } from "../../../ports/clock.js";
import type { KvNamespace, KvStore } from "../../../ports/kv-store.js";
import { createKvStore, type KvRows } from "../kernel/kv-store.js";
import { directCall } from "../kernel/store-call.js";
import { createSystemClock } from "../system/clock.js";

/** Options of {@link createMemoryKvStore}. */
export interface MemoryKvStoreOptions {
  clock?: Clock;
}

interface Scope {
  entries: Map<string, { value: string; updatedAt: number }>;
  /** The keys in UTF-16 order, so a listing starts by binary search instead of sorting the map. */
  keys: string[];
}

/** Index of the first of `keys` ≥ `key` (> `key` when `strict`). */
function seek(keys: string[], key: string, strict = false): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const order = compareUtf16(keys[mid]!, key);
    if (order < 0 || (strict && order === 0)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The in-memory reference KV store: the kernel's KV port over rows in memory — one scope per
 * namespace, values kept as JSON text (callers never share objects with the store), listings
 * seeking in a sorted key index. Every step is synchronous, so `update` is atomic within the process.
 *
 * @example
 * const kv = createMemoryKvStore();
 * await kv.set({ projectId: "p" }, "greeting", "hello");
 */
export function createMemoryKvStore(options: MemoryKvStoreOptions = {}): KvStore {
  const clock = options.clock ?? createSystemClock();
  const scopes = new Map<string, Scope>();
  const scopeOf = (ns: KvNamespace, create: boolean): Scope | undefined => {
    const id = JSON.stringify([ns.projectId, ns.conversationId ?? null]);
    let scope = scopes.get(id);
    if (!scope && create) scopes.set(id, (scope = { entries: new Map(), keys: [] }));
    return scope;
  };
  const rows: KvRows = {
    read: (ns, key) => scopeOf(ns, false)?.entries.get(key),
    write(ns, key, value) {
      const scope = scopeOf(ns, true)!;
      if (!scope.entries.has(key)) scope.keys.splice(seek(scope.keys, key), 0, key);
      scope.entries.set(key, { value, updatedAt: clock.now() });
    },
    remove(ns, key) {
      const scope = scopeOf(ns, false);
      if (!scope || !scope.entries.delete(key)) return false;
      scope.keys.splice(seek(scope.keys, key), 1);
      return true;
    },
    list(ns, { prefix, after, limit }) {
      const scope = scopeOf(ns, false);
      if (!scope) return [];
      const found: Array<{ key: string; value: string; updatedAt: number }> = [];
      for (let at = after === undefined ? seek(scope.keys, prefix) : seek(scope.keys, after, true); found.length < limit && scope.keys[at]?.startsWith(prefix); at++) {
        found.push({ key: scope.keys[at]!, ...scope.entries.get(scope.keys[at]!)! });
      }
      return found;
    },
    modify(ns, key, change) {
      const next = change(scopeOf(ns, false)?.entries.get(key)?.value ?? null);
      if (next === null) rows.remove(ns, key);
      else rows.write(ns, key, next);
    },
  };
  return createKvStore(rows, directCall);
}
