import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startOpenAICompletionsServer } from "../fixtures/loopback-openai-completions.js";
import type { LoopbackServer } from "../fixtures/loopback-server.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { CLI_SOURCE, cleanEnv, cleanup, runCli, startMcp, tempDir, writeProject } from "./helpers.js";

// WF-2: a workflow run carries the project's configuration snapshot and its `executor.tools`
// catalog, as a conversation turn does. A real workflow project is served by a real
// `steamharness mcp` process; its agent node has no endpoint of its own, so it must find its
// model in STEAMHARNESS_AGENT_MODELS (saved with `steamharness config import`), reach the
// loopback Chat Completions server with the key the project's .env names, and call the KV
// capability tool the project declares (auto-approved) in its workflow definition.
const PROJECT_ID = "3c8e1f24-6b7a-4d59-8e0c-2a1b9f7d6e53";
const KV_TOOL = "workflow-kv_kv_store";
// The project imports the agent node from the bundled workflow kit (plain JavaScript), so the
// built CLI runs it when dist/ is fresh, not the sources through tsx.
const workflow = () => `
import { createAgentNode, createProjectCapabilityTools, runStreamNode } from ${JSON.stringify(pathToFileURL(bundledFixture("test/fixtures/workflow-kit.ts")).href)};
export default {
  executor: { tools: [{ id: ${JSON.stringify(KV_TOOL)}, autoApprove: true }] },
  entrypoints: {
    probe: {
      run(_params, context) {
        return {
          tools: context.node.toolCatalog,
          hasConfiguration: context.node.configuration !== undefined,
          models: (context.node.configuration?.snapshot.STEAMHARNESS_AGENT_MODELS ?? []).map((entry) => entry.id),
          configurationId: context.configuration?.configurationId ?? null,
        };
      },
    },
    remember: {
      params: [{ name: "topic", type: "string", required: true }],
      async run(params, context) {
        const node = createAgentNode({
          workdir: context.fileCreateDir,
          createTools: (nodeContext) => createProjectCapabilityTools({ context: nodeContext }),
          retryDelayMs: 0,
          maxSteps: 4,
        });
        const { output } = await runStreamNode(node, { prompt: "Remember the topic " + params.topic }, context.node);
        const stored = await context.kv.get({ projectId: context.projectId }, "topic");
        const text = output.items.filter((item) => item.metadata.kind === "agent-part" && item.metadata.partType === "text").map((item) => String(item.content)).join("");
        return { errCode: output.errCode, errMessage: output.errMessage, output: { model: output.model, stored: stored?.value ?? null, toolCalls: output.toolCallCount, text } };
      },
    },
  },
};
`;

const configurationDocument = (baseUrl: string) => ({
  format: "steamharness.project-configuration",
  version: 1,
  revision: 0,
  fields: [],
  currentConfigurationId: "default",
  configurations: [
    {
      configurationId: "default",
      name: "Default",
      values: {
        STEAMHARNESS_AGENT_MODELS: [
          { id: "loopback", provider: "loopback", model: "configured-chat-model", apiKind: "openai-completions", baseUrl, apiKeyRef: "WF2_LOOPBACK_KEY", system: false },
        ],
      },
    },
  ],
});

describe("WF-2 workflow runs carry the configuration snapshot and the tool catalog", () => {
  let root: string;
  let project: string;
  let dataDir: string;
  let server: LoopbackServer;

  beforeAll(async () => {
    root = await tempDir("wf2-");
    server = await startOpenAICompletionsServer({
      apiKey: "sk-wf2-loopback",
      replies: [
        { toolCalls: [{ id: "call-1", name: KV_TOOL, arguments: { action: "set", key: "topic", value: "tides" } }] },
        { text: "Stored the topic tides." },
      ],
    });
    project = await writeProject(join(root, "project"), {
      "package.json": JSON.stringify({ name: "wf2-workflow", type: "module", id: PROJECT_ID, projectType: "workflow", main: "workflow.mjs" }),
      "workflow.mjs": workflow(),
      // The key lives in the project's .env; the configuration names it only by apiKeyRef.
      ".env": "WF2_LOOPBACK_KEY=sk-wf2-loopback\n",
    });
    dataDir = join(root, "data");
    const document = join(root, "configuration.json");
    await writeFile(document, JSON.stringify(configurationDocument(server.baseUrl)));
    const imported = await runCli(["config", "import", project, document, "--data-dir", dataDir], { argsPrefix: CLI_SOURCE });
    expect(imported).toMatchObject({ code: 0 });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await cleanup(root);
  });

  it("WF-2 `steamharness run`: the node context holds the project's executor.tools and its configuration snapshot", async () => {
    const result = await runCli(["run", project, "probe", "--json", "--data-dir", dataDir], { argsPrefix: CLI_SOURCE });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).result.data.output).toEqual({
      tools: [{ id: KV_TOOL, enabled: true, autoApprove: true }],
      hasConfiguration: true,
      models: ["loopback"],
      configurationId: "default",
    });
  }, 120_000);

  it("WF-2 `steamharness mcp`: an agent node picks its model from STEAMHARNESS_AGENT_MODELS and uses the declared capability tool", async () => {
    const session = await startMcp(project, ["--data-dir", dataDir, "--workers", "1"], { command: CLI_SOURCE, env: cleanEnv() });
    try {
      const result = (await session.client.callTool({ name: "remember", arguments: { topic: "tides" } })) as CallToolResult;
      expect(result.isError).not.toBe(true);
      expect(result.structuredContent).toMatchObject({
        status: "success",
        output: { model: "configured-chat-model", stored: "tides", toolCalls: 1, text: "Stored the topic tides." },
      });
    } finally {
      await session.close();
    }
    // Both model requests went to the configured endpoint, for the configured model, with the key from .env.
    expect(server.requests.map((request) => [request.body.model, request.authorized])).toEqual([
      ["configured-chat-model", true],
      ["configured-chat-model", true],
    ]);
    expect(JSON.stringify(server.requests[0]!.body.tools)).toContain(KV_TOOL);
  }, 120_000);

  it("WF-2 a malformed executor.tools fails the project load, naming the entry", async () => {
    const bad = await writeProject(join(root, "bad"), {
      "package.json": JSON.stringify({ name: "wf2-bad", type: "module", id: "9a7b6c5d-4e3f-4a1b-8c2d-0e1f2a3b4c5d", projectType: "workflow", main: "workflow.mjs" }),
      "workflow.mjs": `export default { executor: { tools: [{ id: "a" }, { id: "a" }] }, entrypoints: { go: { run: () => 1 } } };\n`,
    });
    const result = await runCli(["structure", bad, "--json"], { argsPrefix: CLI_SOURCE });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("executor.tools[1].id");
    expect(result.stderr).toContain('tool "a" is declared twice');
  }, 60_000);
});
