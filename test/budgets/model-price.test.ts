import { describe, expect, it } from "@jest/globals";
import { createHarnessRuntime } from "../../src/compose/runtime.js";
import { checkModelPrice, usageCostMicros, worstCaseCostMicros, worstCaseUsage } from "../../src/domain/budget/model-price.js";
import { settledUsage } from "../../src/domain/budget/reported-usage.js";

describe("BUD-2 model prices", () => {
  it("BUD-2 prices come from the provider library's model metadata, and a configured price overrides them", async () => {
    const runtime = createHarnessRuntime();
    const catalog = await runtime.modelPrice("openai", "gpt-4o-mini");
    expect(catalog).toEqual(expect.objectContaining({ input: expect.any(Number), output: expect.any(Number) }));
    expect(catalog!.output).toBeGreaterThan(catalog!.input);
    expect(await runtime.modelPrice("openai", "no-such-model")).toBeNull();
    expect(await runtime.modelPrice("no-such-provider", "x")).toBeNull();
    const model = await runtime.providerModel({ apiKind: "openai-responses", baseUrl: "http://127.0.0.1:1/v1", apiKey: "k", model: "gpt-4o-mini", maxTokens: 1000, price: { input: 9, output: 99 } });
    expect(model.descriptor).toMatchObject({ maxTokens: 1000, price: { input: 9, output: 99 } });
  });

  it("BUD-2 a call's cost and worst case are micro-dollars at USD per million tokens, rounded up", () => {
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    expect(usageCostMicros({ input: 1000, output: 200, cacheRead: 10, cacheWrite: 0, total: 1210 }, price)).toBe(3000 + 3000 + 3);
    expect(worstCaseCostMicros(1000, 100, price)).toBe(3750 + 1500);
    expect(usageCostMicros({ input: 1, output: 0, cacheRead: 0, cacheWrite: 0, total: 1 }, { input: 0.15, output: 0.6 })).toBe(1);
  });
});

describe("TEN-5 usage and prices the ledger does not trust", () => {
  const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  const worst = worstCaseUsage(1000, 100, price);

  it("TEN-5: the worst case as token counts puts the input in the dearest input kind, so its cost is the worst-case cost", () => {
    expect(worst).toEqual({ input: 0, output: 100, cacheRead: 0, cacheWrite: 1000, total: 1100 });
    expect(usageCostMicros(worst, price)).toBe(worstCaseCostMicros(1000, 100, price));
    expect(worstCaseUsage(10, 5, null)).toEqual({ input: 10, output: 5, cacheRead: 0, cacheWrite: 0, total: 15 });
  });

  it("TEN-5: settledUsage trusts whole, sane counts; absent, negative, fractional, non-finite, absurd or all-zero reports of an answered call count as the worst case", () => {
    expect(settledUsage({ input: 10, output: 5, cacheRead: 0, cacheWrite: 0, total: 15 }, worst, false)).toEqual({ usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, total: 15 }, distrusted: null });
    for (const [report, why] of [
      [undefined, "no usage"],
      [{ input: -5, output: 10, cacheRead: 0, cacheWrite: 0 }, "input -5"],
      [{ input: 1.5, output: 10, cacheRead: 0, cacheWrite: 0 }, "input 1.5"],
      [{ input: Number.NaN, output: Number.POSITIVE_INFINITY, cacheRead: 0, cacheWrite: 0 }, "input NaN, output Infinity"],
      [{ input: 2 ** 60, output: 1, cacheRead: 0, cacheWrite: 0 }, `input ${2 ** 60}`],
      [{ input: 3, output: 1 }, "cacheRead missing, cacheWrite missing"],
      [{ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, "0 tokens for an answered call"],
    ] as const) {
      expect(settledUsage(report, worst, false)).toEqual({ usage: worst, distrusted: why });
    }
  });

  it("TEN-5: a failed request reporting 0 tokens is released; one reporting malformed usage still counts the worst case", () => {
    expect(settledUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, worst, true)).toEqual({ usage: null, distrusted: null });
    expect(settledUsage({ input: -1, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, worst, true).usage).toEqual(worst);
  });

  it("TEN-5: checkModelPrice refuses negative, NaN, infinite and absurd prices with input_validation naming the field", () => {
    expect(checkModelPrice({ input: 0, output: 0.6, cacheRead: 0.03 }, "budget.price")).toEqual({ input: 0, output: 0.6, cacheRead: 0.03 });
    for (const [bad, field] of [
      [{ input: -3, output: 15 }, "budget.price.input"],
      [{ input: 3, output: Number.NaN }, "budget.price.output"],
      [{ input: 3, output: 15, cacheWrite: Number.POSITIVE_INFINITY }, "budget.price.cacheWrite"],
      [{ input: 3, output: 2e6 }, "budget.price.output"],
      [{ output: 15 }, "budget.price.input"],
      ["3", "budget.price"],
    ] as const) {
      let caught: unknown;
      try {
        checkModelPrice(bad, "budget.price");
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: "input_validation", field });
    }
  });
});
