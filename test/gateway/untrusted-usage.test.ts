// TEN-5 through the gateway: a model provider reporting zero, negative, missing, NaN or fractional
// usage no longer answers 500 nor leaks the call's hold (after which the tenant was refused with
// nothing spent), and no call is free: the key tenant's budget is charged the call's reserved worst
// case. Real gateway on 127.0.0.1, the official `openai` client, the memory ledger.
import { describe, expect, it } from "@jest/globals";
import OpenAI from "openai";
import { createMemoryApiKeyStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import type { ModelProvider } from "../../src/ports/model-provider.js";
import type { TokenCounts } from "../../src/ports/token-usage.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { gatewayWith, MODEL } from "./helpers.js";

/** An offline model whose every answer reports `report` as its usage. */
function reporting(report: unknown): ModelProvider {
  const offline = createOfflineModel({ steps: () => ({ text: "ok" }) });
  return {
    descriptor: { ...offline.descriptor, provider: "flaky-provider" },
    async *stream(request, signal) {
      for await (const event of offline.stream(request, signal)) yield event.type === "done" ? { ...event, response: { ...event.response, usage: report as TokenCounts } } : event;
    },
  };
}

const REPORTS: Array<[string, unknown]> = [
  ["zero", { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }],
  ["negative", { input: -900, output: -100, cacheRead: 0, cacheWrite: 0, total: -1000 }],
  ["missing", undefined],
  ["NaN", { input: Number.NaN, output: 3, cacheRead: 0, cacheWrite: 0, total: Number.NaN }],
  ["fractional", { input: 12.5, output: 3, cacheRead: 0, cacheWrite: 0, total: 15.5 }],
];

describe("TEN-5 the gateway's tenant ledger never trusts provider usage", () => {
  for (const [what, report] of REPORTS) {
    it(`TEN-5: ${what} usage reported by the provider: the key's call is answered, charged its worst case, and leaves no hold; the next call is admitted`, async () => {
      const storage = new MemoryStorage();
      const apiKeys = createMemoryApiKeyStore();
      const { secret } = await apiKeys.add({ id: "acme", budgetTokens: 1_000_000 }, Date.now());
      const { gateway } = await gatewayWith([], { apiKeys, storage, agentOptions: { models: reporting(report), budget: { maxOutputTokens: 300 } } });
      const client = new OpenAI({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 });
      expect((await client.responses.create({ model: MODEL, input: "hi" })).output_text).toBe("ok");
      const state = await storage.budgets!.read({ scope: "tenant", id: "acme" }, Date.now());
      expect(state.reserved).toEqual({ tokens: 0, costMicros: 0 });
      // The worst case: the estimated input and the whole output limit.
      expect(state.spent.tokens).toBeGreaterThan(300);
      expect((await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "again" }] })).choices[0]?.message.content).toBe("ok");
      expect((await storage.budgets!.read({ scope: "tenant", id: "acme" }, Date.now())).reserved).toEqual({ tokens: 0, costMicros: 0 });
    });
  }
});
