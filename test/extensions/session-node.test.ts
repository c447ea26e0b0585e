import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { liveHost } from "../../src/app/session-host/registry.js";
import { createAgentSessionHost } from "../../src/compose/session-host.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { harness, offlineNode, runNode } from "../agent/helpers.js";
import { conversation } from "../session-host/helpers.js";

function counterTool(name: string, log: string[]): AgentTool {
  return {
    name,
    label: name,
    description: `Counts calls of ${name}`,
    parameters: Type.Object({ n: Type.Number() }),
    async execute(id, params) {
      log.push(`${name}:${id}:${(params as { n: number }).n}`);
      return { content: [{ type: "text", text: `${name} ran` }] };
    },
  };
}

const address = (conv: string) => ({ projectId: "project-1", conversationId: conv, sessionKey: "agent" });

describe("EXT-1 a node with session: {} runs through the resident session host", () => {
  it("EXT-1 turns share one host: lease held between turns, tools built once, history carried; close() releases", async () => {
    const h = harness();
    const conv = conversation("ext1");
    const effects: string[] = [];
    let builds = 0;
    const { node, model } = offlineNode(
      [{ text: "Counting.", toolCalls: [{ name: "count", arguments: { n: 1 } }] }, { text: "First done." }, { text: "Second done." }],
      { h, session: {}, createTools: () => (builds++, [counterTool("count", effects)]) },
    );
    const tools = [{ id: "count", autoApprove: true }];
    const first = await runNode(node, { prompt: "one" }, h.context("run-a", { conversationId: conv, tools }));
    expect(first.error).toBeUndefined();
    expect(first.output).toMatchObject({ errCode: 0, toolCallCount: 1 });
    expect(effects).toEqual(["count:call_0_0:1"]);
    // Between turns the resident host keeps the lease: nobody else may execute the session.
    expect(liveHost(conv)).not.toBeNull();
    expect(await h.storage.sessions!.leases.acquire(address(conv), { ownerId: "someone-else" })).toBeNull();
    const second = await runNode(node, { prompt: "two" }, h.context("run-b", { conversationId: conv, tools }));
    expect(second.output?.items.some((item) => item.metadata.partType === "text" && item.content === "Second done.")).toBe(true);
    expect(builds).toBe(1);
    // The second turn's request carries the first turn's history.
    expect(model.calls.at(-1)!.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant", "user"]);
    await node.close();
    expect(liveHost(conv)).toBeNull();
    const lease = await h.storage.sessions!.leases.acquire(address(conv), { ownerId: "someone-else" });
    expect(lease).not.toBeNull();
    await lease!.release();
    // After close, the next turn opens a host again.
    const third = await runNode(node, { prompt: "three" }, h.context("run-c", { conversationId: conv, tools }));
    expect(third.error).toBeUndefined();
    expect(builds).toBe(2);
    await node.close();
  });

  it("EXT-1 an approval pause goes through the turn's context; resuming the run id continues the host task without redoing work", async () => {
    const h = harness();
    const conv = conversation("ext1-approve");
    const effects: string[] = [];
    const { node } = offlineNode([{ toolCalls: [{ name: "deploy", arguments: { n: 7 } }] }, { text: "Deployed." }], { h, session: {}, extraTools: [counterTool("deploy", effects)] });
    const tools = [{ id: "deploy" }];
    const paused = await runNode(node, { prompt: "deploy" }, h.context("run-p", { conversationId: conv, tools }));
    expect(isSteamharnessError(paused.error, "user_input_required")).toBe(true);
    expect(effects).toEqual([]);
    const requestId = (paused.error as { requestId: string }).requestId;
    h.permissions.resolve(requestId, { outcome: "approved" });
    const resumed = await runNode(node, { prompt: "deploy" }, h.context("run-p", { conversationId: conv, tools }));
    expect(resumed.error).toBeUndefined();
    expect(effects).toEqual(["deploy:call_0_0:7"]);
    // Re-sending the finished run replays it from the log (SES-3): no tool runs again.
    const replayed = await runNode(node, { prompt: "deploy" }, h.context("run-p", { conversationId: conv, tools }));
    expect(replayed.output?.toolCallCount).toBe(1);
    expect(effects).toHaveLength(1);
    await node.close();
  });

  it("EXT-1 plan-mode and hostInput runs do not take the host's lease (seed) and do not queue host tasks", async () => {
    const h = harness();
    const conv = conversation("ext1-plan");
    const host = await createAgentSessionHost(conv, { projectId: "project-1", storage: h.storage, models: createOfflineModel({ steps: [{ text: "hosted" }] }), workdir: h.workdir });
    const { node } = offlineNode([{ text: "1. Look\n2. Fix" }], { h, session: {}, mode: "plan" });
    const planned = await runNode(node, { prompt: "plan it" }, h.context("run-plan", { conversationId: conv }));
    // The plan waits for its decision (not session_busy: it did not ask for the lease the host holds).
    expect(isSteamharnessError(planned.error, "user_input_required")).toBe(true);
    const { node: gateway } = offlineNode([{ text: "gateway answer" }], { h, session: {} });
    const viaGateway = await runNode(gateway, { prompt: "hi", hostInput: { from: "gateway" } }, h.context("run-gw", { conversationId: conv }));
    expect(viaGateway.error).toBeUndefined();
    expect(viaGateway.output?.items.some((item) => item.metadata.kind === "agent-answer")).toBe(true);
    expect(await host.tasks()).toEqual([]);
    expect(await h.storage.sessions!.leases.acquire(address(conv), { ownerId: "someone-else" })).toBeNull();
    await host.close();
    await node.close();
    await gateway.close();
  });

  it("EXT-1 a node uses a host the application opened before the workflow (seed)", async () => {
    const h = harness();
    const conv = conversation("ext1-app");
    const hostModel = createOfflineModel({ steps: [{ text: "From the application's host." }] });
    const host = await createAgentSessionHost(conv, { projectId: "project-1", storage: h.storage, models: hostModel, workdir: h.workdir });
    const { node, model } = offlineNode([{ text: "never used" }], { h, session: {} });
    const outcome = await runNode(node, { prompt: "hi" }, h.context("run-app", { conversationId: conv }));
    expect(outcome.output?.items.some((item) => item.content === "From the application's host.")).toBe(true);
    expect(model.calls).toHaveLength(0);
    expect((await host.tasks()).map((task) => [task.runId, task.status])).toEqual([["run-app", "completed"]]);
    await node.close();
    expect(liveHost(conv)).not.toBeNull(); // the node closes only hosts it opened
    await host.close();
  });

  it("EXT-1 with EXT-3: catalogs returned by createTools reach runs through the host; tool search works there", async () => {
    const h = harness();
    const conv = conversation("ext1-search");
    const effects: string[] = [];
    const connects: string[] = [];
    const catalog = {
      name: "ops",
      entries: [{ name: "restart_service", description: "Restart a crashed service on a server" }, { name: "rotate_logs", description: "Compress and archive old log files" }],
      connect: () => (connects.push("ops"), [counterTool("restart_service", effects), counterTool("rotate_logs", effects)]),
    };
    const { node, model } = offlineNode(
      [{ toolCalls: [{ name: "tool_search", arguments: { query: "restart the crashed service" } }] }, { toolCalls: [{ name: "restart_service", arguments: { n: 1 } }] }, { text: "Restarted." }],
      { h, session: { toolSearch: {} }, permissionPolicy: { allow: ["read", "tool_search"] }, createTools: () => ({ tools: [], toolGroups: [catalog] }) },
    );
    const outcome = await runNode(node, { prompt: "fix it" }, h.context("run-search-host", { conversationId: conv, tools: [{ id: "catalog:ops", autoApprove: true }] }));
    expect(outcome.error).toBeUndefined();
    expect(effects).toEqual(["restart_service:call_1_0:1"]);
    expect(connects).toEqual(["ops"]);
    expect(model.calls[0]!.tools.map((tool) => tool.name)).not.toContain("restart_service");
    await node.close();
  });
});
