// TEN-5: a model entry's price is checked before any model call. Saving a configuration whose
// STEAMHARNESS_AGENT_MODELS entry has a negative or non-finite price is refused (`input_validation`
// naming the field); a configuration loaded with one (a snapshot written elsewhere) fails the run
// before the model is called; a sane price saved with the entry is what the run's budget charges.
// Real components: the SQLite configuration store, the provider library against a loopback
// OpenAI Responses server, the memory ledger.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createSqliteProjectConfigurationStore } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { createAgentConfigurationLoader } from "../../src/domain/configuration/run-snapshot.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import type { AgentConfigurationSnapshot } from "../../src/domain/agent/model-selection.js";
import type { ProjectConfigurationStore } from "../../src/ports/project-configuration-store.js";
import { startOpenAIResponsesServer, type LoopbackServer } from "../fixtures/loopback-openai-responses.js";

const PROJECT = "5d6e7f80-91a2-4b3c-8d4e-5f6a7b8c9d0e";

let loopback: LoopbackServer;
let store: ProjectConfigurationStore;

beforeAll(async () => {
  loopback = await startOpenAIResponsesServer({ apiKey: "sk-test", replies: [{ text: "ok", usage: { input: 1000, output: 200 } }] });
  store = createSqliteProjectConfigurationStore({ dataDir: mkdtempSync(join(tmpdir(), "ten5-price-")) });
});
afterAll(async () => {
  await loopback.close();
  await store.close?.();
});

const entry = (price: Record<string, number>) => ({ id: "main", provider: "openai", model: "priced-v1", apiKind: "openai-responses" as const, baseUrl: loopback.baseUrl, apiKeyRef: "KEY", system: false, price });

/** The error a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("it did not fail");
}

/** Runs an agent with a tenant money budget on `configuration`; resolves the ledger's state of the tenant. */
async function run(configuration: AgentConfigurationSnapshot | ReturnType<typeof createAgentConfigurationLoader>, runId: string) {
  const storage = new MemoryStorage();
  const node = createAgentNode({ retryDelayMs: 0, compaction: false, configuration, budget: { limits: [{ scope: "tenant", costUsd: 100 }], tenantId: "acme", maxOutputTokens: 500 } });
  await runStreamNode(node, { prompt: "go" }, createNodeContext({ projectId: PROJECT, storage, runId }));
  return storage.budgets!.read({ scope: "tenant", id: "acme" }, Date.now());
}

describe("TEN-5 model prices are checked when a configuration is saved and loaded", () => {
  it("TEN-5: saving a model entry with a negative, NaN or infinite price is refused with input_validation naming the field; nothing is saved", async () => {
    for (const [n, bad] of ([{ input: -3, output: 15 }, { input: 3, output: Number.NaN }, { input: 3, output: 15, cacheWrite: Number.POSITIVE_INFINITY }] as Record<string, number>[]).entries()) {
      const error = await failure(store.create(PROJECT, { configurationId: `bad-${n}`, name: "Bad", values: { STEAMHARNESS_AGENT_MODELS: [entry(bad)] } }));
      expect(isSteamharnessError(error, "input_validation")).toBe(true);
      // A negative price is named by its path; NaN and infinities are not JSON, so the values as a whole are refused.
      expect((error as { field?: string }).field).toBe(n === 0 ? "values/STEAMHARNESS_AGENT_MODELS/0/price/input" : "values");
    }
    expect((await store.read(PROJECT)).configurations.map((one) => one.configurationId)).not.toEqual(expect.arrayContaining(["bad-0", "bad-1", "bad-2"]));
  });

  it("TEN-5: a loaded configuration whose entry has a negative price fails the run with input_validation naming the field, before the model is called", async () => {
    const loaded: AgentConfigurationSnapshot = { values: { STEAMHARNESS_AGENT_MODELS: [{ ...entry({ input: -3, output: 15 }), source: "third-party", apiKey: "sk-test" }] as never } };
    const before = loopback.requests.length;
    const error = await failure(run(loaded, "run-loaded"));
    expect(isSteamharnessError(error, "input_validation")).toBe(true);
    expect((error as { field?: string }).field).toBe("STEAMHARNESS_AGENT_MODELS/0/price/input");
    expect(loopback.requests.length).toBe(before);
  });

  it("TEN-5: a sane price saved with the entry is what the run's money budget charges", async () => {
    await store.create(PROJECT, { configurationId: "good", name: "Good", values: { STEAMHARNESS_AGENT_MODELS: [entry({ input: 2, output: 10 })] } });
    const state = await run(createAgentConfigurationLoader({ store, clock: createFixedClock(Date.UTC(2026, 11, 6)), configurationId: "good", resolveApiKey: () => "sk-test" }), "run-good");
    // 1000 input tokens at 2 and 200 output tokens at 10 micro-dollars each.
    expect(state.spent).toEqual({ tokens: 1200, costMicros: 4000 });
    expect(state.reserved).toEqual({ tokens: 0, costMicros: 0 });
  });
});
