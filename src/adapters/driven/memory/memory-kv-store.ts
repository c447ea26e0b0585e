import type { Clock } from "../../../ports/clock.js";
import type { KvNamespace, KvStore } from "../../../ports/kv-store.js";
import { createKvStore, type KvRows } from "../kernel/kv-store.js";
import { directCall } from "../kernel/store-call.js";
import { createSystemClock } from "../system/clock.js";
import { SortedKeys, collectPage } from "./sorted-keys.js";

/** Options of {@link createMemoryKvStore}. */
export interface MemoryKvStoreOptions {
  clock?: Clock;
}

interface Scope {
  entries: Map<string, { value: string; updatedAt: number }>;
  keys: SortedKeys;
}

/**
 * The KV rows in memory: one scope per namespace, values kept as JSON text (callers never share
 * objects with the store), listings seeking in a sorted key index. Every step is synchronous,
 * so `modify` is atomic within the process.
 *
 * @example
 * const rows = createMemoryKvRows(createSystemClock());
 */
export function createMemoryKvRows(clock: Clock): KvRows {
  const scopes = new Map<string, Scope>();
  const scopeOf = (ns: KvNamespace, create: boolean): Scope | undefined => {
    const id = JSON.stringify([ns.projectId, ns.conversationId ?? null]);
    let scope = scopes.get(id);
    if (!scope && create) scopes.set(id, (scope = { entries: new Map(), keys: new SortedKeys() }));
    return scope;
  };
  const rows: KvRows = {
    read: (ns, key) => scopeOf(ns, false)?.entries.get(key),
    write(ns, key, value) {
      const scope = scopeOf(ns, true)!;
      if (!scope.entries.has(key)) scope.keys.add(key);
      scope.entries.set(key, { value, updatedAt: clock.now() });
    },
    remove(ns, key) {
      const scope = scopeOf(ns, false);
      if (!scope || !scope.entries.delete(key)) return false;
      scope.keys.remove(key);
      return true;
    },
    list(ns, { prefix, after, limit }) {
      const scope = scopeOf(ns, false);
      if (!scope) return [];
      const start = after === undefined ? scope.keys.seek(prefix) : scope.keys.seek(after, true);
      return collectPage(scope.keys, start, prefix, limit).page.map((key) => ({ key, ...scope.entries.get(key)! }));
    },
    modify(ns, key, change) {
      const next = change(scopeOf(ns, false)?.entries.get(key)?.value ?? null);
      if (next === null) rows.remove(ns, key);
      else rows.write(ns, key, next);
    },
  };
  return rows;
}

/**
 * The in-memory reference KV store: the kernel's KV port over {@link createMemoryKvRows}.
 *
 * @example
 * const kv = createMemoryKvStore();
 * await kv.set({ projectId: "p" }, "greeting", "hello");
 */
export function createMemoryKvStore(options: MemoryKvStoreOptions = {}): KvStore {
  return createKvStore(createMemoryKvRows(options.clock ?? createSystemClock()), directCall);
}
