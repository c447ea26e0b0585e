import { describe, expect, it } from "@jest/globals";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import OpenAI from "openai";
import { startGateway } from "../../src/compose/gateway.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createAgentConversationProject } from "../../src/app/conversation/conversation-project.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { lastUserText, TOKEN } from "./helpers.js";

const SECRET = "SECRET-INSTRUCTIONS-42";

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

describe("GW-3 host-driven runs only through the gateway", () => {
  it("GW-3 OUT-1 OUT-2 SES-6 a gateway run puts the whole turn in one agent-answer and its host input reaches the model but no history; an ordinary run of the same project keeps text in place", async () => {
    const lookup: AgentTool = {
      name: "lookup", label: "Lookup", description: "Looks up", parameters: Type.Object({}),
      execute: async () => ({ content: [{ type: "text", text: "found" }] }),
    };
    const model = createOfflineModel({ steps: [{ text: "Looking.", toolCalls: [{ name: "lookup", arguments: {} }] }, { text: "Done." }, { text: "Second turn." }] });
    const project = createAgentConversationProject({
      id: "5b0c7a2e-3f4d-4e1a-9b8c-7d6e5f4a3b2c",
      name: "host-driven",
      executor: {
        extraTools: [lookup],
        executor: { tools: [{ id: "lookup", autoApprove: true }], conversation: { recovery: { enabled: false }, durable: { enabled: true }, openai: { outputItemId: "gw-answer" } } },
      },
    });
    const root = tempDirRemovedAfterAll("gateway-host-");
    const agentStoreDir = join(root, "agents");
    const storage = createSqliteStorage({ directory: join(root, "store"), agentStoreDir });
    const workdir = tempDirRemovedAfterAll("gateway-work-");
    const gateway = await startGateway({ project, agent: { models: model, workdir, retryDelayMs: 0 }, storage, token: TOKEN });
    try {
      expect(gateway.modelId).toBe("host-driven");
      const client = new OpenAI({ baseURL: gateway.url, apiKey: TOKEN, maxRetries: 0 });
      const first = await client.responses.create({ model: "host-driven", input: "go", instructions: SECRET });
      // Both text segments, around the tool call, in the one answer.
      expect(first.output_text).toBe("Looking.\n\nDone.");
      expect(first.output).toHaveLength(1);
      expect(lastUserText(model.calls[0]!)).toContain(SECRET);
      // Gateway sessions stay in memory: nothing durable was written.
      expect(filesUnder(agentStoreDir)).toEqual([]);
      const second = await client.responses.create({ model: "host-driven", input: "again", previous_response_id: first.id });
      expect(second.output_text).toBe("Second turn.");
      const history = JSON.stringify(model.calls[2]!.messages.slice(0, -1));
      expect(history).toContain("go");
      expect(history).toContain("Looking.");
      expect(history).not.toContain(SECRET);
      expect(JSON.stringify(model.calls[2]!.messages)).not.toContain(SECRET);

      // The same project run ordinarily (the chat's way): text parts where they were spoken.
      const ordinary = createAgentNode({ ...project.executor.agent, models: createOfflineModel({ steps: [{ text: "Looking.", toolCalls: [{ name: "lookup", arguments: {} }] }, { text: "Done." }] }), workdir, retryDelayMs: 0 });
      const context = createNodeContext({ projectId: project.manifest.id, conversationId: "chat-1", storage, runId: "run-chat", toolCatalog: [...project.executor.toolCatalog] });
      const { output } = await runStreamNode(ordinary, { prompt: "go" }, context);
      expect(output.items.filter((item) => item.metadata.kind === "agent-answer")).toHaveLength(0);
      expect(output.items.filter((item) => item.metadata.kind === "agent-part").map((item) => `${item.metadata.partType}:${item.metadata.partType === "text" ? item.content : item.metadata.tool}`)).toEqual(["text:Looking.", "tool:lookup", "text:Done."]);
      const durable = filesUnder(agentStoreDir);
      expect(durable.length).toBeGreaterThan(0);
      for (const file of durable) expect(readFileSync(file).includes(SECRET)).toBe(false);
    } finally {
      await gateway.close();
      await storage.close();
    }
  });
});
