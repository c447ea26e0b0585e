import { describe, expect, it } from "@jest/globals";
import { createHarnessRuntime } from "../../src/compose/runtime.js";
import { usageCostMicros, worstCaseCostMicros } from "../../src/domain/budget/model-price.js";

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
