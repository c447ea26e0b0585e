import { STORE_LIMITS } from "../domain/limits.js";
import type { JsonValue } from "../domain/json.js";
import type { KvNamespace, KvStore } from "../ports/kv-store.js";
import {
  collectAll,
  defineContract,
  errorCode,
  nonJsonValues,
  tamper,
  uniqueId,
  type ContractCases,
  type ContractFactory,
  type ContractOptions,
  type ContractTestApi,
} from "./contract-support.js";

/** Raw reads of a KV backend that bypass the adapter under test. */
export interface KvStoreInspect {
  /** The stored value (`null` when absent), read straight from the backend. */
  get(ns: KvNamespace, key: string): Promise<JsonValue | null>;
}

const key4 = (n: number): string => `k${String(n).padStart(4, "0")}`;
const FOREIGN = ["input_validation", "cursor_mismatch"];

const cases: ContractCases<KvStore, KvStoreInspect> = {
  "round trip of every JSON shape": async ({ store, inspect, expect }) => {
    const ns = { projectId: uniqueId("p") };
    const values: JsonValue[] = [0, -1.5, "", "héllo 世界 😀", true, false, null, [], {}, { a: [1, { b: null }] }];
    for (const [i, value] of values.entries()) {
      await store.set(ns, `key-${i}`, value);
      const entry = await store.get(ns, `key-${i}`);
      expect(entry?.key).toBe(`key-${i}`);
      expect(entry?.value).toEqual(value);
      expect(Number.isFinite(entry?.updatedAt)).toBe(true);
      if (inspect) expect(await inspect.get(ns, `key-${i}`)).toEqual(value);
    }
  },

  "absent keys read null and delete reports whether the key existed": async ({ store, expect }) => {
    const ns = { projectId: uniqueId("p") };
    expect(await store.get(ns, "missing")).toBeNull();
    expect(await store.delete(ns, "missing")).toBe(false);
    await store.set(ns, "k", 1);
    expect(await store.delete(ns, "k")).toBe(true);
    expect(await store.get(ns, "k")).toBeNull();
    expect(await store.delete(ns, "k")).toBe(false);
  },

  "set replaces and stored values are copies": async ({ store, expect }) => {
    const ns = { projectId: uniqueId("p") };
    const value = { list: [1] };
    await store.set(ns, "k", value);
    value.list.push(2);
    const read = await store.get(ns, "k");
    expect(read?.value).toEqual({ list: [1] });
    (read!.value as { list: number[] }).list.push(3);
    expect((await store.get(ns, "k"))?.value).toEqual({ list: [1] });
    await store.set(ns, "k", "second");
    expect((await store.get(ns, "k"))?.value).toBe("second");
    expect((await store.list(ns)).items).toHaveLength(1);
  },

  "project and conversation scopes are isolated": async ({ store, expect }) => {
    const a = uniqueId("p");
    const b = uniqueId("p");
    const scopes: KvNamespace[] = [
      { projectId: a },
      { projectId: b },
      { projectId: a, conversationId: "c1" },
      { projectId: a, conversationId: "c2" },
      { projectId: b, conversationId: "c1" },
    ];
    for (const [i, ns] of scopes.entries()) await store.set(ns, "shared", i);
    for (const [i, ns] of scopes.entries()) {
      expect((await store.get(ns, "shared"))?.value).toBe(i);
      expect((await store.list(ns)).items.map((e) => e.value)).toEqual([i]);
    }
    expect(await store.delete(scopes[2], "shared")).toBe(true);
    expect((await store.get(scopes[0], "shared"))?.value).toBe(0);
    expect((await store.get(scopes[3], "shared"))?.value).toBe(3);
  },

  "list filters by prefix in UTF-16 code-unit order": async ({ store, expect }) => {
    const ns = { projectId: uniqueId("p") };
    // "\uE000" sorts after "😀" (a surrogate pair) in code points but before it in UTF-16 units.
    const keys = ["a/2", "a/1", "a", "ab", "b/1", "a/\uE000", "a/😀", "a/é", "a/Z"];
    for (const key of keys) await store.set(ns, key, key);
    const all = (await store.list(ns)).items.map((e) => e.key);
    expect(all).toEqual([...keys].sort());
    const prefixed = (await store.list(ns, { prefix: "a/" })).items.map((e) => e.key);
    expect(prefixed).toEqual(keys.filter((k) => k.startsWith("a/")).sort());
    expect((await store.list(ns, { prefix: "zzz" })).items).toEqual([]);
    expect((await store.list(ns, { prefix: "a/" })).items[0].value).toBe("a/1");
  },

  "pagination visits every entry once across many pages": async ({ store, expect }) => {
    const ns = { projectId: uniqueId("p") };
    for (let i = 0; i < 95; i++) await store.set(ns, key4(i), i);
    await store.set(ns, "other", 0);
    const first = await store.list(ns, { prefix: "k", limit: 10 });
    expect(first.items).toHaveLength(10);
    expect(typeof first.nextCursor).toBe("string");
    const keys = (await collectAll((cursor) => store.list(ns, { prefix: "k", limit: 10, cursor }))).map((e) => e.key);
    expect(keys).toEqual(Array.from({ length: 95 }, (_, i) => key4(i)));
    const exact = await collectAll((cursor) => store.list(ns, { prefix: "k", limit: 19, cursor }));
    expect(exact).toHaveLength(95);
  },

  "inserts between pages neither duplicate nor skip entries": async ({ store, expect }) => {
    const ns = { projectId: uniqueId("p") };
    const original = Array.from({ length: 60 }, (_, i) => key4(i * 2));
    for (const key of original) await store.set(ns, key, 0);
    const seen: string[] = [];
    let cursor: string | null = null;
    let inserted = 1;
    do {
      const page: { items: { key: string }[]; nextCursor: string | null } = await store.list(ns, { limit: 7, cursor });
      seen.push(...page.items.map((e) => e.key));
      cursor = page.nextCursor;
      // New keys land both before and after the cursor.
      await store.set(ns, key4(inserted), 1);
      await store.set(ns, key4(118 - inserted), 1);
      inserted += 4;
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(seen);
    for (const key of original) expect(seen).toContain(key);
    // Keys inserted ahead of the cursor show up on later pages.
    expect(seen.filter((key) => !original.includes(key)).length).toBeGreaterThan(0);
  },

  "limit defaults to 50, is capped at 500 and must be a positive integer": async ({ store, expect }) => {
    const ns = { projectId: uniqueId("p") };
    for (let i = 0; i < STORE_LIMITS.pageLimit + 1; i++) await store.set(ns, key4(i), i);
    expect((await store.list(ns)).items).toHaveLength(STORE_LIMITS.defaultPageLimit);
    const capped = await store.list(ns, { limit: 10_000 });
    expect(capped.items).toHaveLength(STORE_LIMITS.pageLimit);
    expect(capped.nextCursor).not.toBeNull();
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      expect(await errorCode(() => store.list(ns, { limit }))).toBe("input_validation");
    }
  },

  "malformed, tampered, oversized and foreign cursors are refused": async ({ store, expect }) => {
    const ns = { projectId: uniqueId("p") };
    for (let i = 0; i < 5; i++) await store.set(ns, `a${i}`, i);
    await store.set(ns, "b0", 0);
    const { nextCursor } = await store.list(ns, { prefix: "a", limit: 2 });
    expect(nextCursor).not.toBeNull();
    const cursor = nextCursor!;
    for (const bad of ["", "garbage", "not.a.cursor", tamper(cursor), `${cursor}x`, "x".repeat(STORE_LIMITS.cursor + 1)]) {
      expect(await errorCode(() => store.list(ns, { prefix: "a", limit: 2, cursor: bad }))).toBe("input_validation");
    }
    expect(FOREIGN).toContain(await errorCode(() => store.list(ns, { prefix: "b", cursor })));
    expect(FOREIGN).toContain(await errorCode(() => store.list(ns, { cursor })));
    expect(FOREIGN).toContain(await errorCode(() => store.list({ ...ns, conversationId: "c" }, { prefix: "a", cursor })));
    expect(FOREIGN).toContain(await errorCode(() => store.list({ projectId: uniqueId("p") }, { prefix: "a", cursor })));
    expect((await store.list(ns, { prefix: "a", limit: 2, cursor })).items.map((e) => e.key)).toEqual(["a2", "a3"]);
  },

  "invalid keys and namespaces are refused and change nothing": async ({ store, inspect, expect }) => {
    const ns = { projectId: uniqueId("p") };
    const longest = "k".repeat(STORE_LIMITS.kvKey);
    await store.set(ns, longest, "ok");
    expect((await store.get(ns, longest))?.value).toBe("ok");
    for (const key of ["", "k".repeat(STORE_LIMITS.kvKey + 1), "\uD800lone", 42 as unknown as string]) {
      expect(await errorCode(() => store.set(ns, key, 1))).toBe("input_validation");
      expect(await errorCode(() => store.get(ns, key))).toBe("input_validation");
    }
    for (const bad of [{ projectId: "" }, { projectId: ns.projectId, conversationId: "" }]) {
      expect(await errorCode(() => store.set(bad, "k", 1))).toBe("input_validation");
    }
    expect((await store.list(ns)).items.map((e) => e.key)).toEqual([longest]);
    if (inspect) expect(await inspect.get(ns, "k")).toBeNull();
  },

  "non-JSON and oversized values are refused and change nothing": async ({ store, inspect, expect }) => {
    const ns = { projectId: uniqueId("p") };
    await store.set(ns, "k", "before");
    const oversized = "x".repeat(STORE_LIMITS.kvValueBytes);
    const multibyte = "é".repeat(STORE_LIMITS.kvValueBytes / 2);
    for (const [label, value] of [...nonJsonValues(), ["oversized", oversized], ["oversized utf-8", multibyte]]) {
      const code = await errorCode(() => store.set(ns, "k", value as JsonValue));
      expect(`${label}: ${code}`).toBe(`${label}: input_validation`);
    }
    expect((await store.get(ns, "k"))?.value).toBe("before");
    if (inspect) expect(await inspect.get(ns, "k")).toBe("before");
    const largest = "x".repeat(STORE_LIMITS.kvValueBytes - 2);
    await store.set(ns, "k", largest);
    expect(((await store.get(ns, "k"))?.value as string).length).toBe(largest.length);
  },

  "update creates, replaces and deletes atomically": async ({ store, inspect, expect }) => {
    const ns = { projectId: uniqueId("p") };
    const seen: Array<JsonValue | null> = [];
    expect(await store.update(ns, "n", (current) => (seen.push(current), 1))).toBe(1);
    expect(await store.update(ns, "n", (current) => (seen.push(current), (current as number) + 1))).toBe(2);
    expect(seen).toEqual([null, 1]);
    expect((await store.get(ns, "n"))?.value).toBe(2);
    if (inspect) expect(await inspect.get(ns, "n")).toBe(2);
    expect(await store.update(ns, "n", () => undefined)).toBeNull();
    expect(await store.get(ns, "n")).toBeNull();
    expect(await store.update(ns, "absent", () => undefined)).toBeNull();
    expect(await store.get(ns, "absent")).toBeNull();
  },

  "update rethrows the callback's error and changes nothing": async ({ store, inspect, expect }) => {
    const ns = { projectId: uniqueId("p") };
    await store.set(ns, "n", 5);
    const failure = new Error("callback failed");
    let caught: unknown;
    try {
      await store.update(ns, "n", () => {
        throw failure;
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBe(failure);
    expect(await errorCode(() => store.update(ns, "n", () => Number.NaN))).toBe("input_validation");
    expect(await errorCode(() => store.update(ns, "", () => 1))).toBe("input_validation");
    expect((await store.get(ns, "n"))?.value).toBe(5);
    if (inspect) expect(await inspect.get(ns, "n")).toBe(5);
  },

  "concurrent updates never lose an increment": async ({ store, expect }) => {
    const ns = { projectId: uniqueId("p"), conversationId: uniqueId("c") };
    const increment = (current: JsonValue | null): JsonValue => ((current as number | null) ?? 0) + 1;
    await Promise.all(Array.from({ length: 50 }, () => store.update(ns, "counter", increment)));
    expect((await store.get(ns, "counter"))?.value).toBe(50);
  },
};

/** Case names of {@link runKvStoreContract}, usable in `options.skip`. */
export const KV_STORE_CONTRACT_CASES: readonly string[] = Object.keys(cases);

/**
 * The KV-store port contract: round trips, scopes, prefix listing, keyset pagination under
 * concurrent inserts, cursor validation, input limits and `update()` atomicity. A fresh store
 * per case from `factory`; `inspect` (optional) reads the backend directly.
 *
 * @example
 * runKvStoreContract({ describe, it, expect }, () => ({ store: new MemoryStorage().kv }));
 */
export function runKvStoreContract(
  api: ContractTestApi,
  factory: ContractFactory<KvStore, KvStoreInspect>,
  options: ContractOptions = {},
): void {
  defineContract(api, "KvStore", factory, cases, options);
}
