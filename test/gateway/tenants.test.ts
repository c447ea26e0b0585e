import { describe, expect, it } from "@jest/globals";
import OpenAI from "openai";
import { createMemoryApiKeyStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import type { ApiTenant } from "../../src/ports/api-keys.js";
import { gatedModel, gatewayWith, MODEL, TOKEN } from "./helpers.js";

/** A gateway with API keys (and the single token), a key of `tenant`, and an OpenAI client with that key. */
async function keyed(tenant: ApiTenant, options: Parameters<typeof gatewayWith>[1] = {}) {
  const apiKeys = createMemoryApiKeyStore();
  const { secret } = await apiKeys.add(tenant, Date.now());
  const opened = await gatewayWith(() => ({ text: "ok", usage: { input: 30, output: 20 } }), { apiKeys, ...options });
  return { ...opened, apiKeys, secret, keyClient: new OpenAI({ baseURL: opened.gateway.url, apiKey: secret, maxRetries: 0 }) };
}

/** The error a client call rejects with. */
async function failure(call: () => Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call();
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error("the call succeeded");
}

describe("BUD-4 gateway API keys and tenant limits", () => {
  it("BUD-4 a valid key is served, a revoked one refused after the cache bound; the single token still works", async () => {
    const { keyClient, client, apiKeys, secret } = await keyed({ id: "acme" }, { keyCacheMs: 50 });
    expect((await keyClient.responses.create({ model: MODEL, input: "hi" })).output_text).toBe("ok");
    expect((await client.responses.create({ model: MODEL, input: "hi" })).output_text).toBe("ok");
    await apiKeys.revoke(secret.slice(0, 11), Date.now());
    await new Promise((resolve) => setTimeout(resolve, 80));
    const refused = await failure(() => keyClient.responses.create({ model: MODEL, input: "hi" }));
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused.code).toBe("invalid_api_key");
  });

  it("BUD-4 the request rate limit is a 429 RateLimitError with Retry-After and code rate_limit_exceeded", async () => {
    const { keyClient, client } = await keyed({ id: "acme", requestsPerMinute: 2 });
    await keyClient.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "1" }] });
    await keyClient.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "2" }] });
    const limited = await failure(() => keyClient.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "3" }] }));
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited.code).toBe("rate_limit_exceeded");
    expect(Number(limited.headers?.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited.headers?.get("retry-after"))).toBeLessThanOrEqual(60);
    // Another credential is not limited by the tenant's window.
    expect((await client.responses.create({ model: MODEL, input: "hi" })).output_text).toBe("ok");
  });

  it("BUD-4 the token rate limit refuses once the minute's tokens are used", async () => {
    const { keyClient } = await keyed({ id: "acme", tokensPerMinute: 60 });
    await keyClient.responses.create({ model: MODEL, input: "a" }); // 50 tokens
    await keyClient.responses.create({ model: MODEL, input: "b" }); // 100: the window is full
    const limited = await failure(() => keyClient.responses.create({ model: MODEL, input: "c" }));
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited.code).toBe("rate_limit_exceeded");
    expect(limited.type).toBe("tokens");
    expect(Number(limited.headers?.get("retry-after"))).toBeGreaterThan(0);
  });

  it("BUD-4 the concurrency limit refuses a request beyond the tenant's running ones, and frees the slot after", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const apiKeys = createMemoryApiKeyStore();
    const { secret } = await apiKeys.add({ id: "acme", concurrency: 1 }, Date.now());
    let calls = 0;
    const { gateway } = await gatewayWith([], {
      apiKeys,
      agentOptions: { models: gatedModel(() => (calls++ === 0 ? held : Promise.resolve())) },
    });
    const keyClient = new OpenAI({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 });
    const first = keyClient.responses.create({ model: MODEL, input: "slow" });
    while (gateway.activeRuns() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const limited = await failure(() => keyClient.responses.create({ model: MODEL, input: "second" }));
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited.code).toBe("rate_limit_exceeded");
    expect(limited.headers?.get("retry-after")).toBe("1");
    release();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await keyClient.responses.create({ model: MODEL, input: "third" })).output_text).toBe("ok");
  });

  it("BUD-4 an exhausted tenant budget is a 429 with the distinct code insufficient_quota", async () => {
    const storage = new MemoryStorage();
    const { keyClient } = await keyed({ id: "acme", budgetTokens: 100_000 }, { storage });
    expect((await keyClient.responses.create({ model: MODEL, input: "hi" })).output_text).toBe("ok");
    const spent = await storage.budgets!.read({ scope: "tenant", id: "acme" }, Date.now());
    expect(spent.spent.tokens).toBe(50);
    // Spend the rest as another host would, through the shared ledger.
    await storage.budgets!.reserve({ reservationId: "elsewhere", limits: [{ scope: "tenant", id: "acme", tokens: 100_000 }], amount: { tokens: 99_950, costMicros: 0 }, at: Date.now() });
    await storage.budgets!.settle("elsewhere", { tokens: 99_950, costMicros: 0 });
    const refused = await failure(() => keyClient.responses.create({ model: MODEL, input: "hi" }));
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused.code).toBe("insufficient_quota");
    expect(refused.type).toBe("insufficient_quota");
    const chat = await failure(() => keyClient.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "x" }] }));
    expect(chat.code).toBe("insufficient_quota");
  });

  it("BUD-4 a run the tenant budget cannot afford fails with insufficient_quota before the model is called", async () => {
    const { keyClient, model } = await keyed({ id: "tiny", budgetTokens: 10 });
    const refused = await failure(() => keyClient.responses.create({ model: MODEL, input: "hi" }));
    expect(refused.status).toBe(429);
    expect(refused.code).toBe("insufficient_quota");
    expect(model.calls.length).toBe(0);
  });

  it("BUD-4 hammering bad keys from one address never locks out a valid key from it", async () => {
    const { gateway, secret } = await keyed({ id: "acme" }, { rateLimit: { requests: 3, windowMs: 60_000 } });
    const statuses: number[] = [];
    for (let n = 0; n < 10; n++) {
      const bad = await fetch(`${gateway.url}/models`, { headers: { authorization: `Bearer sh_${"x".repeat(43)}` } });
      statuses.push(bad.status);
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3).every((status) => status === 429)).toBe(true);
    const good = await fetch(`${gateway.url}/models`, { headers: { authorization: `Bearer ${secret}` } });
    expect(good.status).toBe(200);
    const token = await fetch(`${gateway.url}/models`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(token.status).toBe(200);
  });
});
