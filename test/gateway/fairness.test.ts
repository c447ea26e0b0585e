import { describe, expect, it } from "@jest/globals";
import OpenAI from "openai";
import { createMemoryApiKeyStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { gatedModel, gatewayWith, MODEL } from "./helpers.js";

const MODEL_MS = 60;
const CAPACITY = 2;
const NOISY = 24;
const QUIET_REQUESTS = 20;

const p95 = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]!;

/** The quiet tenant's request latencies (sequential requests), with or without a noisy tenant flooding the gateway. */
async function quietLatencies(withNoisy: boolean): Promise<number[]> {
  const apiKeys = createMemoryApiKeyStore();
  const quiet = await apiKeys.add({ id: "quiet" }, Date.now());
  const noisy = await apiKeys.add({ id: "noisy" }, Date.now());
  const { gateway } = await gatewayWith([], { apiKeys, maxConcurrentRuns: CAPACITY, agentOptions: { models: gatedModel(() => new Promise((resolve) => setTimeout(resolve, MODEL_MS))) } });
  const quietClient = new OpenAI({ baseURL: gateway.url, apiKey: quiet.secret, maxRetries: 0 });
  const noisyClient = new OpenAI({ baseURL: gateway.url, apiKey: noisy.secret, maxRetries: 0 });
  // A first request warms the gateway up (lazy imports), unmeasured.
  await quietClient.responses.create({ model: MODEL, input: "warm up" });
  let flooding = withNoisy;
  // The noisy tenant keeps NOISY requests in flight until the quiet one is done.
  const flood = withNoisy
    ? Promise.all(
        Array.from({ length: NOISY }, async () => {
          while (flooding) await noisyClient.responses.create({ model: MODEL, input: "noise" });
        }),
      )
    : Promise.resolve([]);
  if (withNoisy) while (gateway.activeRuns() < CAPACITY) await new Promise((resolve) => setTimeout(resolve, 5));
  const latencies: number[] = [];
  for (let n = 0; n < QUIET_REQUESTS; n++) {
    const started = performance.now();
    expect((await quietClient.responses.create({ model: MODEL, input: `quiet ${n}` })).output_text).toBe("ok");
    latencies.push(performance.now() - started);
  }
  flooding = false;
  await flood;
  return latencies;
}

describe("BUD-5 gateway fairness between tenants", () => {
  it("BUD-5 a noisy tenant flooding the gateway does not raise a quiet tenant's p95 wait beyond 4× its wait alone", async () => {
    const alone = p95(await quietLatencies(false));
    const beside = p95(await quietLatencies(true));
    // Fair turns: the quiet request takes the next free slot (≤ one model call of waiting), so
    // about 2× alone. First come first served would queue it behind NOISY − CAPACITY requests
    // (≈ 8× alone here). The margin is generous for a loaded machine; no absolute times.
    expect(beside).toBeLessThan(alone * 4);
  }, 60_000);

  it("BUD-5 maxConcurrentRuns must be a positive integer", async () => {
    await expect(gatewayWith([], { maxConcurrentRuns: 0 })).rejects.toMatchObject({ code: "input_validation" });
  });
});
