import { describe, expect, it } from "@jest/globals";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { readAgentModels, selectAgentModel, type AgentConfigurationSnapshot } from "../../src/domain/agent/model-selection.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import type { JsonValue } from "../../src/domain/json.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { harness, runNode } from "./helpers.js";

const models = [
  { id: "sys-fast", source: "system" as const, provider: "openai", model: "gpt-fast", apiKey: "k1" },
  { id: "tp-claude", source: "third-party" as const, provider: "anthropic", model: "claude-x", apiKey: "k2", baseUrl: "http://127.0.0.1:1" },
  { id: "sys-big", source: "system" as const, provider: "openai", model: "gpt-big", apiKey: "k3" },
];
const list = models as unknown as JsonValue;
const snapshot = (extra: Partial<AgentConfigurationSnapshot> = {}): AgentConfigurationSnapshot => ({ values: { STEAMHARNESS_AGENT_MODELS: list }, ...extra });
const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return isSteamharnessError(error) ? error.code : "other";
  }
};

describe("AG-4 model selection", () => {
  it("AG-4 model picks a configured entry by id, else the first", () => {
    expect(selectAgentModel({}, snapshot())).toMatchObject({ source: "configured", entry: { id: "sys-fast", apiKind: "openai-responses" } });
    expect(selectAgentModel({ model: "tp-claude" }, snapshot())).toMatchObject({ source: "configured", entry: { id: "tp-claude", apiKind: "anthropic-messages" } });
    expect(selectAgentModel({ provider: "anthropic" }, snapshot())).toMatchObject({ entry: { id: "tp-claude" } });
    expect(code(() => selectAgentModel({ model: "missing" }, snapshot()))).toBe("not_found");
    expect(code(() => selectAgentModel({}, { values: {} }))).toBe("input_validation");
  });

  it("AG-4 the configuration value may be a JSON string or { allowThirdParty, models }; malformed values are refused", () => {
    expect(readAgentModels({ values: { STEAMHARNESS_AGENT_MODELS: JSON.stringify(models) } }).entries).toHaveLength(3);
    expect(readAgentModels({ values: { STEAMHARNESS_AGENT_MODELS: { allowThirdParty: false, models: list } } }).policy).toEqual({ allowThirdParty: false });
    expect(code(() => readAgentModels({ values: { STEAMHARNESS_AGENT_MODELS: "{nope" } }))).toBe("input_validation");
    expect(code(() => readAgentModels({ values: { STEAMHARNESS_AGENT_MODELS: [{ id: "x" }] } }))).toBe("input_validation");
  });

  it("AG-4 an injected model set wins over the configuration; an explicit endpoint needs provider and model", () => {
    expect(selectAgentModel({ injected: ["a", "b"] }, snapshot())).toEqual({ source: "injected", id: "a" });
    expect(selectAgentModel({ injected: ["a", "b"], model: "b" }, snapshot())).toEqual({ source: "injected", id: "b" });
    expect(selectAgentModel({ provider: "openai", model: "gpt-x", baseUrl: "http://127.0.0.1:9", apiKey: "k" }, snapshot())).toMatchObject({ source: "explicit", apiKind: "openai-responses", apiKey: "k" });
    expect(code(() => selectAgentModel({ apiKey: "k" }, snapshot()))).toBe("input_validation");
  });

  it("AG-4 allowThirdParty: false selects system models only and rejects explicit endpoints, keys and injected models", () => {
    const strict = snapshot({ agentModelPolicy: { allowThirdParty: false } });
    expect(selectAgentModel({}, strict)).toMatchObject({ entry: { id: "sys-fast" } });
    expect(selectAgentModel({ model: "sys-big" }, strict)).toMatchObject({ entry: { id: "sys-big" } });
    expect(code(() => selectAgentModel({ model: "tp-claude" }, strict))).toBe("not_found");
    expect(code(() => selectAgentModel({ provider: "openai", model: "m", baseUrl: "http://x" }, strict))).toBe("input_validation");
    expect(code(() => selectAgentModel({ apiKey: "k" }, strict))).toBe("input_validation");
    expect(code(() => selectAgentModel({ injected: ["a"] }, strict))).toBe("input_validation");
  });

  it("AG-4 an injected model is refused at run time under allowThirdParty: false, with agent-error", async () => {
    const h = harness();
    const node = createAgentNode({ models: createOfflineModel({ steps: [{ text: "x" }] }), configuration: snapshot({ agentModelPolicy: { allowThirdParty: false } }), workdir: h.workdir });
    const result = await runNode(node, { prompt: "p" }, h.context("run-strict"));
    expect(isSteamharnessError(result.error, "input_validation")).toBe(true);
    expect(result.items.filter((item) => item.metadata.kind === "agent-error")).toHaveLength(1);
  });

  it("AG-4 a resumed run keeps the policy snapshot and model it started with, even after the configuration changed", async () => {
    const h = harness();
    const fast = createOfflineModel({ model: "fast", steps: [{ toolCalls: [{ name: "write", arguments: { path: "f.txt", content: "f" } }] }, { text: "done on fast" }] });
    const slow = createOfflineModel({ model: "slow", steps: [{ text: "slow" }, { text: "done on slow" }] });
    let config: AgentConfigurationSnapshot = { values: {} };
    const node = createAgentNode({ models: { fast, slow }, configuration: () => config, permissionPolicy: "ask", workdir: h.workdir });
    const first = await runNode(node, { prompt: "p", model: "fast" }, h.context("run-snapshot"));
    h.permissions.resolve((first.error as { requestId: string }).requestId, { outcome: "approved" });
    // The configuration now forbids injected models, and the input names another model: the run resumes as it started.
    config = { values: {}, agentModelPolicy: { allowThirdParty: false } };
    const second = await runNode(node, { prompt: "p", model: "slow" }, h.context("run-snapshot"));
    expect(second.error).toBeUndefined();
    expect(second.output).toMatchObject({ model: "fast", provider: "offline" });
    expect(fast.calls).toHaveLength(2);
    expect(slow.calls).toHaveLength(0);
  });

  it("AG-4 configured and explicit models never take a key from the environment", async () => {
    const h = harness();
    process.env.OPENAI_API_KEY = "sk-env-should-not-be-used";
    try {
      const node = createAgentNode({ configuration: { values: { STEAMHARNESS_AGENT_MODELS: [{ id: "m", provider: "openai", model: "gpt" }] } }, workdir: h.workdir });
      const result = await runNode(node, { prompt: "p" }, h.context("run-nokey"));
      expect(isSteamharnessError(result.error, "input_validation")).toBe(true);
      expect((result.error as Error).message).toMatch(/API key/);
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it("AG-4 a host's createModel builds configured models (system models re-authenticated by the host)", async () => {
    const h = harness();
    const seen: string[] = [];
    const node = createAgentNode({
      configuration: snapshot({ agentModelPolicy: { allowThirdParty: false } }),
      model: "sys-big",
      workdir: h.workdir,
      createModel: (selection) => {
        if (selection.source === "configured") seen.push(`${selection.entry.id}:${selection.entry.source}`);
        return createOfflineModel({ model: "host-authenticated", steps: [{ text: "hi" }] });
      },
    });
    const result = await runNode(node, { prompt: "p" }, h.context("run-host-model"));
    expect(result.error).toBeUndefined();
    expect(seen).toEqual(["sys-big:system"]);
    expect(result.output!.model).toBe("host-authenticated");
  });
});
