import type { TokenUsageEntry, TokenUsageRecorder } from "../ports/token-usage.js";
import { type ContractTestApi, checkSkips, randomTestId } from "./contract-harness.js";

/** What the factory of {@link runTokenUsageContract} returns. */
export interface TokenUsageFixture {
  usage: TokenUsageRecorder;
  dispose?(): Promise<void> | void;
}

const SKIPS = [] as const;

const entry = (input: number, output: number): TokenUsageEntry => ({
  entryId: randomTestId("entry"),
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

/**
 * Contract suite for the token-usage port: totals add up, recording is idempotent by entry id,
 * concurrent distinct entries are all counted, invalid counts are refused without effect.
 *
 * @example
 * runTokenUsageContract({ describe, it, expect }, () => ({ usage: createKvTokenUsage(new MemoryStorage().kv, { projectId: "p" }) }));
 */
export function runTokenUsageContract(
  t: ContractTestApi,
  factory: () => Promise<TokenUsageFixture> | TokenUsageFixture,
  options: { skip?: never[] } = {},
): void {
  checkSkips("TokenUsage", SKIPS, options.skip);
  const withFixture = (fn: (f: TokenUsageFixture) => Promise<void>) => async () => {
    const fixture = await factory();
    try {
      await fn(fixture);
    } finally {
      await fixture.dispose?.();
    }
  };

  t.describe("TokenUsage contract", () => {
    t.it("starts at zero and sums recorded entries", withFixture(async ({ usage }) => {
      t.expect(await usage.total()).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });
      await usage.record(entry(10, 5));
      await usage.record(entry(3, 2));
      t.expect(await usage.total()).toEqual({ input: 13, output: 7, cacheRead: 2, cacheWrite: 0, total: 22 });
    }));

    t.it("recording the same entry id twice counts it once", withFixture(async ({ usage }) => {
      const e = entry(10, 5);
      t.expect(await usage.record(e)).toBe(true);
      t.expect(await usage.record({ ...e })).toBe(false);
      t.expect((await usage.total()).total).toBe(16);
      t.expect(await usage.get(e.entryId)).toEqual(e);
      t.expect(await usage.get("missing-entry")).toBeNull();
    }));

    t.it("concurrent distinct entries are all counted", withFixture(async ({ usage }) => {
      await Promise.all(Array.from({ length: 20 }, () => usage.record(entry(1, 1))));
      t.expect((await usage.total()).total).toBe(60);
    }));

    t.it("negative or non-finite counts are refused and change nothing", withFixture(async ({ usage }) => {
      await t.expect(usage.record({ ...entry(1, 1), input: -1 })).rejects.toMatchObject({ code: "input_validation" });
      await t.expect(usage.record({ ...entry(1, 1), output: Number.NaN })).rejects.toMatchObject({ code: "input_validation" });
      t.expect((await usage.total()).total).toBe(0);
    }));
  });
}
