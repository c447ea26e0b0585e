import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { SteamharnessError } from "../../src/domain/errors.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { harness, offlineNode, ofKind, runNode } from "./helpers.js";
import { createProjectCapabilityTools } from "../../src/app/capabilities/project-capabilities.js";

const card = { kind: "knowledge", operation: "read", title: "Roadmap", target: { source: "server", projectId: "docs-project", documentId: "roadmap" } };

function tool(name: string, result: () => Promise<{ content: Array<{ type: "text"; text: string }>; details?: Record<string, unknown> }>): AgentTool {
  return { name, label: name, description: `${name} tool`, parameters: Type.Object({}), execute: result };
}

async function rowsFor(tools: AgentTool[]) {
  const h = harness();
  const node = createAgentNode({
    models: createOfflineModel({ steps: [{ toolCalls: tools.map((t) => ({ name: t.name, arguments: {} })) }, { text: "done" }] }),
    workdir: h.workdir,
    extraTools: tools,
  });
  const { output } = await runStreamNode(node, { prompt: "go" }, h.context("run-1", { tools: tools.map((t) => ({ id: t.name, autoApprove: true })) }));
  return Object.fromEntries(output.items.filter((i) => i.metadata.partType === "tool").map((i) => [String(i.metadata.tool), i.content as Record<string, unknown>]));
}

describe("resource cards of custom tools through the agent (CAP-9)", () => {
  it("CAP-9 a valid card passes through unchanged; an invalid one is dropped with a warning; a failed result has none", async () => {
    const rows = await rowsFor([
      tool("good", async () => ({ content: [{ type: "text", text: "ok" }], details: { resourceCard: card } })),
      tool("invalid", async () => ({ content: [{ type: "text", text: "ok" }], details: { resourceCard: { ...card, kind: "spaceship" } } })),
      tool("self", async () => ({ content: [{ type: "text", text: "ok" }], details: { resourceCard: { kind: "project", operation: "open", target: { source: "server", projectId: "project-1" } } } })),
      tool("failing", async () => {
        throw new SteamharnessError("unavailable", "backend down");
      }),
    ]);
    expect(rows.good).toMatchObject({ status: "completed", resourceCard: card });
    expect(rows.invalid.resourceCard).toBeUndefined();
    expect(rows.invalid.resourceCardWarning).toMatchObject({ code: "input_validation" });
    expect(rows.self.resourceCard).toBeUndefined();
    expect(rows.self.resourceCardWarning).toBeDefined();
    expect(rows.failing).toMatchObject({ status: "failed" });
    expect(rows.failing.resourceCard).toBeUndefined();
  });
});

describe("CAP-10 present_card on the agent's tool row", () => {
  it("CAP-10 the structured card command is on the tool row, not only in the text; pinned appears only when the model set it", async () => {
    const h = harness();
    const id = "workflow-ui_present_card";
    const { node } = offlineNode(
      [
        { toolCalls: [
          { id: "c1", name: id, arguments: { action: "upsert", cardId: "site", kind: "browser", target: { url: "https://example.com/" } } },
          { id: "c2", name: id, arguments: { action: "upsert", cardId: "doc", kind: "knowledge", pinned: true, target: { source: "current", documentId: "a" } } },
        ] },
        { text: "Shown." },
      ],
      { h, createTools: (context) => createProjectCapabilityTools({ context }) },
    );
    const result = await runNode(node, { prompt: "show" }, h.context("run-card", { tools: [{ id, autoApprove: true }] }));
    expect(result.error).toBeUndefined();
    const rows = ofKind(result.items, "agent-part", "tool");
    expect(rows.map((row) => (row.content as { cardCommand?: unknown }).cardCommand)).toEqual([
      { action: "upsert", cardId: "site", kind: "browser", target: { url: "https://example.com/" }, preview: true },
      { action: "upsert", cardId: "doc", kind: "knowledge", target: { source: "current", documentId: "a" }, pinned: true },
    ]);
  });
});
