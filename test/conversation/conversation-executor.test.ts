import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { defineAgentConversationExecutor, isAgentConversationExecutor, type AgentConversationExecutorOptions } from "../../src/app/conversation/define-executor.js";
import { createAgentConversationProject, openConversationProject, parseConversationManifest } from "../../src/app/conversation/conversation-project.js";
import { loadAgentConversationProject } from "../../src/compose/conversation-project.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { createNodeContext } from "../../src/compose/node-context.js";

const conversation = { recovery: { enabled: true }, durable: { enabled: true } };
const valid: AgentConversationExecutorOptions = { name: "assistant", executor: { tools: [{ id: "workflow-kv_kv_store", autoApprove: true }], conversation } };

function failure(run: () => unknown): { code?: string; field?: string; message?: string } {
  try {
    run();
  } catch (error) {
    return error as { code?: string };
  }
  throw new Error("expected a failure");
}

describe("CONV-1 defineAgentConversationExecutor", () => {
  it("CONV-1 normalises the catalog and takes outputItemId from conversation.openai", () => {
    const executor = defineAgentConversationExecutor({
      ...valid,
      executor: { tools: [{ id: "a" }, { id: "b", enabled: false }], conversation: { ...conversation, openai: { outputItemId: "answer" } } },
    });
    expect(isAgentConversationExecutor(executor)).toBe(true);
    expect(executor.toolCatalog).toEqual([{ id: "a", enabled: true, autoApprove: false }, { id: "b", enabled: false, autoApprove: false }]);
    expect(executor.agent).toEqual({ name: "assistant", outputItemId: "answer" });
    expect(Object.isFrozen(executor.toolCatalog[0])).toBe(true);
    expect(defineAgentConversationExecutor(executor)).toBe(executor);
  });

  it("CONV-1 refuses malformed declarations with input_validation naming the field", () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ name: "x" }, "executor", /executor is required/],
      [{ executor: { conversation } }, "executor.tools", /tools/i],
      [{ executor: { tools: [{ id: "" }], conversation } }, "executor.tools[0].id", /length/i],
      [{ executor: { tools: [{ id: "a", autoApprove: "yes" }], conversation } }, "executor.tools[0].autoApprove", /boolean/i],
      [{ executor: { tools: [{ id: "a", approve: true }], conversation } }, "executor.tools[0].approve", /additional|unexpected/i],
      [{ executor: { tools: [{ id: "a" }, { id: "a" }], conversation } }, "executor.tools[1].id", /declared twice/],
      [{ executor: { tools: [{ id: "a", enabled: false, autoApprove: true }], conversation } }, "executor.tools[0].autoApprove", /disabled/],
      [{ executor: { tools: [], conversation: { durable: { enabled: true } } } }, "executor.conversation.recovery", /recovery|required/i],
      [{ executor: { tools: [], conversation: { recovery: { enabled: "on" }, durable: { enabled: true } } } }, "executor.conversation.recovery.enabled", /boolean/i],
      [{ executor: { tools: [], conversation: { recovery: { enabled: true }, durable: { enabled: false } } } }, "executor.conversation.recovery.enabled", /durable/],
      [{ executor: { tools: [], conversation: { ...conversation, openai: { outputItemId: "" } } } }, "executor.conversation.openai.outputItemId", /length/i],
      [{ outputItemId: "mine", executor: { tools: [], conversation: { ...conversation, openai: { outputItemId: "theirs" } } } }, "outputItemId", /must equal/],
      [{ conversation, executor: { tools: [], conversation } }, "conversation", /inside executor/],
      [{ tools: [{ id: "a" }], executor: { tools: [], conversation } }, "tools", /executor\.tools/],
      [{ historyLimit: 0, executor: { tools: [], conversation } }, "historyLimit", /greater|minimum|>=/i],
      [{ apiKind: "grpc", executor: { tools: [], conversation } }, "apiKind", /union|expected/i],
      [{ createTools: "tools", executor: { tools: [], conversation } }, "createTools", /function/i],
      [null, "options", /options object/],
    ];
    for (const [options, field, message] of cases) {
      const error = failure(() => defineAgentConversationExecutor(options as AgentConversationExecutorOptions));
      expect([error.code, error.field]).toEqual(["input_validation", field]);
      expect(error.message).toMatch(message);
    }
  });
});

describe("CONV-1 conversation projects", () => {
  it("CONV-1 createAgentConversationProject builds a projectType conversation project", () => {
    const project = createAgentConversationProject({ id: "7d1e9a42-5c3b-4f08-9a6e-2b4c8d0f1e35", name: "assistant", executor: valid });
    expect(project.packageJson()).toEqual({ name: "assistant", private: true, type: "module", id: "7d1e9a42-5c3b-4f08-9a6e-2b4c8d0f1e35", projectType: "conversation", main: "conversation.mjs" });
    expect(parseConversationManifest(project.packageJson())).toEqual(project.manifest);
    expect(project.executor.toolCatalog[0]).toEqual({ id: "workflow-kv_kv_store", enabled: true, autoApprove: true });
    expect(failure(() => createAgentConversationProject({ id: "not-a-uuid", executor: valid })).field).toBe("id");
    expect(failure(() => createAgentConversationProject({ id: "7d1e9a42-5c3b-4f08-9a6e-2b4c8d0f1e35", main: "../outside.mjs", executor: valid })).field).toBe("main");
    expect(failure(() => parseConversationManifest({ id: "7d1e9a42-5c3b-4f08-9a6e-2b4c8d0f1e35", projectType: "workflow", main: "w.mjs" })).message).toMatch(/workflow project/);
  });

  it("CONV-1 a conversation project folder loads and runs a turn: catalog auto-approval and a custom tool's resource card", async () => {
    const project = await loadAgentConversationProject("test/conversation/fixtures/roadmap-assistant");
    expect(project.manifest).toEqual(expect.objectContaining({ id: "7d1e9a42-5c3b-4f08-9a6e-2b4c8d0f1e35", projectType: "conversation", main: "conversation.mjs" }));
    expect(project.executor.agent.outputItemId).toBe("roadmap-answer");
    const model = createOfflineModel({ steps: [{ toolCalls: [{ name: "roadmap_lookup", arguments: { itemId: "42" } }] }, { text: "Item 42 is on the board." }, { text: "Looking.", toolCalls: [{ name: "roadmap_lookup", arguments: { itemId: "43" } }] }, { text: "Item 43 is too." }] });
    const node = createAgentNode({ ...project.executor.agent, models: model, retryDelayMs: 0, workdir: mkdtempSync(join(tmpdir(), "conv-")) });
    const permissions = createMemoryToolPermissions();
    const context = createNodeContext({ projectId: project.manifest.id, storage: new MemoryStorage(), runId: "run-1", toolPermissions: permissions, toolCatalog: [...project.executor.toolCatalog] });
    const { output } = await runStreamNode(node, { prompt: "What is item 42?" }, context);
    expect(output.errCode).toBe(0);
    const toolResult = model.calls[1]!.messages.find((m) => m.role === "toolResult");
    expect(JSON.stringify(toolResult)).toContain("Item 42");
    // An ordinary run keeps its text in place (OUT-2); only a host-driven run fills the
    // declared agent-answer item (GW-3).
    expect(output.items.find((item) => item.id === "roadmap-answer")).toBeUndefined();
    expect(output.items.filter((item) => item.metadata.partType === "text").map((item) => item.content)).toEqual(["Item 42 is on the board."]);
    expect(JSON.stringify(output.items)).toContain('"resourceCard"');
    const hostedContext = createNodeContext({ projectId: project.manifest.id, storage: context.storage, runId: "run-2", toolPermissions: permissions, toolCatalog: [...project.executor.toolCatalog] });
    const hosted = await runStreamNode(node, { prompt: "And item 43?", hostInput: { channel: "gateway" } }, hostedContext);
    const answer = hosted.output.items.find((item) => item.id === "roadmap-answer");
    expect([answer?.metadata.kind, answer?.content]).toEqual(["agent-answer", "Looking.\n\nItem 43 is too."]);
    expect(hosted.output.items.filter((item) => item.metadata.partType === "text")).toHaveLength(0);
  });

  it("CONV-1 loading refuses folders that are not conversation projects, with the reason", async () => {
    const dir = mkdtempSync(join(tmpdir(), "conv-bad-"));
    try {
      await expect(loadAgentConversationProject(dir)).rejects.toMatchObject({ code: "input_validation", field: "directory" });
      writeFileSync(join(dir, "package.json"), JSON.stringify({ id: "7d1e9a42-5c3b-4f08-9a6e-2b4c8d0f1e35", projectType: "conversation", main: "c.mjs" }));
      writeFileSync(join(dir, "c.mjs"), "export default { executor: { tools: [{ id: 1 }], conversation: { recovery: { enabled: false }, durable: { enabled: false } } } };");
      await expect(loadAgentConversationProject(dir)).rejects.toMatchObject({ code: "input_validation", field: "executor.tools[0].id" });
      // A new module file: ESM caches modules by URL.
      writeFileSync(join(dir, "package.json"), JSON.stringify({ id: "7d1e9a42-5c3b-4f08-9a6e-2b4c8d0f1e35", projectType: "conversation", main: "d.mjs" }));
      writeFileSync(join(dir, "d.mjs"), "export const nothing = 1;");
      await expect(loadAgentConversationProject(dir)).rejects.toMatchObject({ code: "input_validation", field: "main" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("CONV-1 ARCH-9 the loader reads package.json through the files it is handed (the root's), never the disk directly", async () => {
    const dir = resolve("test/conversation/fixtures/roadmap-assistant");
    const asked: string[] = [];
    const refusing = {
      read: async (path: string): Promise<string> => {
        asked.push(path);
        throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: "EACCES" });
      },
    };
    await expect(openConversationProject(dir, refusing)).rejects.toMatchObject({ code: "input_validation", field: "directory" });
    expect(asked).toEqual([join(dir, "package.json")]);
    const project = await openConversationProject(dir, { read: async (path) => readFileSync(path, "utf8") });
    expect(project.directory).toBe(dir);
  });
});
