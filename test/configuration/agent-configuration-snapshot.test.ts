import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { createSqliteProjectConfigurationStore } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createAgentConfigurationLoader, RUN_SNAPSHOT_PREFIX } from "../../src/domain/configuration/run-snapshot.js";
import { takeProjectConfigurationSnapshot } from "../../src/domain/configuration/snapshot.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import type { ProjectConfigurationStore } from "../../src/ports/project-configuration-store.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { startOpenAIResponsesServer, type LoopbackServer } from "../fixtures/loopback-openai-responses.js";

const PROJECT = "3c9d2b1a-8e7f-4a6b-9c5d-1e2f3a4b5c6d";
const KEYS: Record<string, string> = { HOUSE_KEY: "sk-house", BYOK_KEY: "sk-byok" };

let loopback: LoopbackServer;
let store: ProjectConfigurationStore;

beforeAll(async () => {
  loopback = await startOpenAIResponsesServer({
    apiKey: "sk-house",
    replies: [{ toolCalls: [{ id: "call_1", name: "write", arguments: { path: "f.txt", content: "hello" } }] }, { text: "written" }],
  });
  store = createSqliteProjectConfigurationStore({ dataDir: mkdtempSync(join(tmpdir(), "cfg2-agent-")) });
});

afterAll(async () => {
  await loopback.close();
  await store.close?.();
});

describe("CFG-2 an agent run keeps the configuration snapshot it started with", () => {
  it("CFG-2 the configuration changes while a run is paused; the resumed run uses the original models and agentModelPolicy", async () => {
    const house = { id: "house", provider: "openai", model: "house-v1", apiKind: "openai-responses" as const, baseUrl: loopback.baseUrl, apiKeyRef: "HOUSE_KEY", system: true };
    const byok = { id: "byok", provider: "openai", model: "byok-v1", apiKind: "openai-responses" as const, baseUrl: loopback.baseUrl, apiKeyRef: "BYOK_KEY", system: false };
    await store.setFields(PROJECT, [{ key: "STEAMHARNESS_AGENT_MODELS", type: "agent-models", allowThirdParty: false }], { expectedRevision: 0 });
    await store.create(PROJECT, { configurationId: "main", name: "Main", values: { STEAMHARNESS_AGENT_MODELS: [byok, house] } });

    const clock = createFixedClock(Date.UTC(2026, 10, 30));
    const workdir = mkdtempSync(join(tmpdir(), "cfg2-work-"));
    const node = createAgentNode({
      permissionPolicy: "ask",
      workdir,
      retryDelayMs: 0,
      configuration: createAgentConfigurationLoader({ store, clock, resolveApiKey: (ref) => KEYS[ref] }),
    });
    const storage = new MemoryStorage();
    const permissions = createMemoryToolPermissions();
    const context = () => createNodeContext({ projectId: PROJECT, storage, runId: "run-cfg2", toolPermissions: permissions });

    // Start: allowThirdParty is false, so the first system model ("house") is chosen over the third-party entry.
    const paused = await runStreamNode(node, { prompt: "write f.txt" }, context()).catch((error: unknown) => error as { code?: string; requestId?: string });
    expect((paused as { code?: string }).code).toBe("user_input_required");
    expect(loopback.requests.map((r) => r.body.model)).toEqual(["house-v1"]);

    // While paused: the policy is lifted, the house model is renamed and the third-party model comes first.
    const { revision } = await store.read(PROJECT);
    await store.setFields(PROJECT, [{ key: "STEAMHARNESS_AGENT_MODELS", type: "agent-models", allowThirdParty: true }], { expectedRevision: revision });
    await store.update(PROJECT, "main", { expectedRevision: 1, values: { STEAMHARNESS_AGENT_MODELS: [byok, { ...house, model: "house-v2" }] } });
    const now = await takeProjectConfigurationSnapshot(store, PROJECT, { clock });
    expect([now.agentModelPolicy.allowThirdParty, now.STEAMHARNESS_AGENT_MODELS[0]!.id]).toEqual([true, "byok"]);

    permissions.resolve((paused as { requestId: string }).requestId, { outcome: "approved" });
    const resumed = await runStreamNode(node, { prompt: "write f.txt" }, context());
    expect(resumed.output).toMatchObject({ errCode: 0, model: "house-v1" });
    expect(loopback.requests.map((r) => r.body.model)).toEqual(["house-v1", "house-v1"]);
    expect(readFileSync(join(workdir, "f.txt"), "utf8")).toBe("hello");
    // The run's snapshot is recorded with the run, without keys.
    const recorded = await storage.values.get(PROJECT, `${RUN_SNAPSHOT_PREFIX}run-cfg2`);
    expect(recorded).toMatchObject({ configurationId: "main", configurationRevision: 1, agentModelPolicy: { allowThirdParty: false } });
    expect(JSON.stringify(recorded)).not.toContain("sk-house");
  });
});
