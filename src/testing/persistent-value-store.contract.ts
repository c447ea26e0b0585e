import { STORE_LIMITS } from "../domain/limits.js";
import type { JsonValue } from "../domain/json.js";
import type { PersistentValueStore } from "../ports/persistent-value-store.js";
import {
  defineContract,
  errorCode,
  nonJsonValues,
  uniqueId,
  type ContractCases,
  type ContractFactory,
  type ContractOptions,
  type ContractTestApi,
} from "./contract-support.js";

/** Raw reads of a persistent-value backend that bypass the adapter under test. */
export interface PersistentValueStoreInspect {
  get(projectId: string, name: string): Promise<JsonValue | null>;
}

const cases: ContractCases<PersistentValueStore, PersistentValueStoreInspect> = {
  "set, get, replace and delete": async ({ store, inspect, expect }) => {
    const p = uniqueId("p");
    expect(await store.get(p, "missing")).toBeNull();
    expect(await store.delete(p, "missing")).toBe(false);
    await store.set(p, "run", { count: 1, tags: ["a"] });
    expect(await store.get(p, "run")).toEqual({ count: 1, tags: ["a"] });
    await store.set(p, "run", null);
    expect(await store.get(p, "run")).toBeNull();
    expect(await store.names(p)).toEqual(["run"]);
    if (inspect) expect(await inspect.get(p, "run")).toBeNull();
    await store.set(p, "run", "again");
    if (inspect) expect(await inspect.get(p, "run")).toBe("again");
    expect(await store.delete(p, "run")).toBe(true);
    expect(await store.delete(p, "run")).toBe(false);
    expect(await store.names(p)).toEqual([]);
  },

  "values are copies": async ({ store, expect }) => {
    const p = uniqueId("p");
    const value = { list: [1] };
    await store.set(p, "v", value);
    value.list.push(2);
    const read = (await store.get(p, "v")) as { list: number[] };
    read.list.push(3);
    expect(await store.get(p, "v")).toEqual({ list: [1] });
  },

  "names are listed in ascending order per project": async ({ store, expect }) => {
    const a = uniqueId("p");
    const b = uniqueId("p");
    for (const name of ["b", "a", "\uE000", "😀", "A"]) await store.set(a, name, name);
    await store.set(b, "only-b", 1);
    expect(await store.names(a)).toEqual(["A", "a", "b", "😀", "\uE000"]);
    expect(await store.names(b)).toEqual(["only-b"]);
    expect(await store.get(b, "a")).toBeNull();
  },

  "invalid names and values are refused and change nothing": async ({ store, inspect, expect }) => {
    const p = uniqueId("p");
    await store.set(p, "keep", 1);
    for (const name of ["", "n".repeat(STORE_LIMITS.kvKey + 1), "\uDC00"]) {
      expect(await errorCode(() => store.set(p, name, 1))).toBe("input_validation");
    }
    const oversized = "x".repeat(STORE_LIMITS.kvValueBytes);
    for (const [label, value] of [...nonJsonValues(), ["oversized", oversized]]) {
      expect(`${label}: ${await errorCode(() => store.set(p, "keep", value as JsonValue))}`).toBe(`${label}: input_validation`);
    }
    expect(await errorCode(() => store.set("", "keep", 1))).toBe("input_validation");
    expect(await store.get(p, "keep")).toBe(1);
    expect(await store.names(p)).toEqual(["keep"]);
    if (inspect) expect(await inspect.get(p, "keep")).toBe(1);
  },
};

/** Case names of {@link runPersistentValueStoreContract}, usable in `options.skip`. */
export const PERSISTENT_VALUE_STORE_CONTRACT_CASES: readonly string[] = Object.keys(cases);

/**
 * The persistent-value port contract: round trips, copies, sorted names per project and input
 * limits that change nothing.
 *
 * @example
 * runPersistentValueStoreContract({ describe, it, expect }, () => ({ store: new MemoryStorage().values }));
 */
export function runPersistentValueStoreContract(
  api: ContractTestApi,
  factory: ContractFactory<PersistentValueStore, PersistentValueStoreInspect>,
  options: ContractOptions = {},
): void {
  defineContract(api, "PersistentValueStore", factory, cases, options);
}
