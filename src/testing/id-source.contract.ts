import type { IdSource } from "../ports/id-source.js";
import { defineContract, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

const cases: ContractCases<IdSource, undefined> = {
  "ids are non-empty and distinct": async ({ store, expect }) => {
    const ids = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = store.next();
      expect(typeof id).toBe("string");
      if (id.length === 0 || ids.has(id)) expect(`id ${JSON.stringify(id)} at ${i}`).toBe("fresh");
      ids.add(id);
    }
    expect(ids.size).toBe(10_000);
  },

  "ids start with the requested prefix and stay distinct across prefixes": async ({ store, expect }) => {
    const a = store.next("file_");
    const b = store.next("file_");
    const c = store.next("run-");
    expect(a.startsWith("file_")).toBe(true);
    expect(b.startsWith("file_")).toBe(true);
    expect(c.startsWith("run-")).toBe(true);
    expect(a.length).toBeGreaterThan("file_".length);
    expect(new Set([a, b, c]).size).toBe(3);
  },
};

/**
 * The id-source port contract: non-empty, distinct ids honouring the prefix. (Uniqueness across
 * processes cannot be shown in one process; random sources get it from UUIDs.)
 *
 * @example
 * runIdSourceContract({ describe, it, expect }, () => ({ store: createRandomIdSource() }));
 */
export function runIdSourceContract(api: ContractTestApi, factory: ContractFactory<IdSource>, options: ContractOptions = {}): void {
  defineContract(api, "IdSource", factory, cases, options);
}
