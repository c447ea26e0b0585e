import type { TokenUsageEntry, TokenUsageRecorder } from "../ports/token-usage.js";
import { defineContract, errorCode, uniqueId, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

const entry = (input: number, output: number): TokenUsageEntry => ({
  entryId: uniqueId("entry"),
  runId: "run-contract",
  provider: "offline",
  model: "offline-scripted",
  at: 1_700_000_000_000,
  input,
  output,
  cacheRead: 1,
  cacheWrite: 0,
  total: input + output + 1,
});

const cases: ContractCases<TokenUsageRecorder, undefined> = {
  "starts at zero and sums recorded entries": async ({ store, expect }) => {
    expect(await store.total()).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });
    await store.record(entry(10, 5));
    await store.record(entry(3, 2));
    expect(await store.total()).toEqual({ input: 13, output: 7, cacheRead: 2, cacheWrite: 0, total: 22 });
  },
  "recording the same entry id twice counts it once": async ({ store, expect }) => {
    const e = entry(10, 5);
    expect(await store.record(e)).toBe(true);
    expect(await store.record({ ...e })).toBe(false);
    expect((await store.total()).total).toBe(16);
    expect(await store.get(e.entryId)).toEqual(e);
    expect(await store.get("missing-entry")).toBeNull();
  },
  "concurrent distinct entries are all counted": async ({ store, expect }) => {
    await Promise.all(Array.from({ length: 20 }, () => store.record(entry(1, 1))));
    expect((await store.total()).total).toBe(60);
  },
  "negative or non-finite counts are refused and change nothing": async ({ store, expect }) => {
    expect(await errorCode(() => store.record({ ...entry(1, 1), input: -1 }))).toBe("input_validation");
    expect(await errorCode(() => store.record({ ...entry(1, 1), output: Number.NaN }))).toBe("input_validation");
    expect((await store.total()).total).toBe(0);
  },
};

/**
 * Contract suite for the token-usage port: totals add up, recording is idempotent by entry id,
 * concurrent distinct entries are all counted, invalid counts are refused without effect.
 *
 * @example
 * runTokenUsageContract({ describe, it, expect }, () => ({ store: createKvTokenUsage(new MemoryStorage().kv, { projectId: "p" }) }));
 */
export function runTokenUsageContract(
  api: ContractTestApi,
  factory: ContractFactory<TokenUsageRecorder>,
  options: ContractOptions<keyof typeof cases & string> = {},
): void {
  defineContract(api, "TokenUsage", factory, cases, options);
}
