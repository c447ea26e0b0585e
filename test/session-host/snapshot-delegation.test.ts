import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { createAgentSessionHost } from "../../src/agent.js";
import { collect, conversation, tempDir } from "./helpers.js";

type Ring = { id: string; display: unknown; content: { value: number; total: number; unit: string } };
type Snapshot = {
  activeTargetId: number;
  contexts: Array<{ targetId: number; kind: string; parentTargetId: number | null; outputs: Ring[] }>;
  turns: Array<{ taskId: string; targetId: number; status: string; usage: { input: number; output: number; total: number } }>;
};

const snap = async (host: { snapshot(): Promise<{ content: unknown }> }) => (await host.snapshot()).content as Snapshot;
const ringOf = (snapshot: Snapshot, targetId: number) => snapshot.contexts.find((context) => context.targetId === targetId)!.outputs[0]!;

describe("agent-session snapshot", () => {
  it("HOST-6 turns[].usage per turn; fork (even without a new answer), reset and compaction refresh each context's ring", async () => {
    const dir = tempDir();
    const conv = conversation("snapshot");
    const long = "x".repeat(4000);
    const model = createOfflineModel({ steps: (request: ModelRequest): OfflineStep => {
      const turn = request.messages.filter((message) => message.role === "user").length;
      return { text: `Answer ${turn}: ${long}`, usage: { output: 1000 + turn } };
    } });
    const host = await createAgentSessionHost(conv, { projectId: "p1", agentStoreDir: dir, models: model, workdir: dir });
    const out = collect();
    host.subscribe(out.listener);
    for (const prompt of ["one", "two", "three"]) {
      const { taskId } = (await host.control({ type: "submit", prompt })) as { taskId: string };
      await host.waitForTask(taskId);
    }
    let snapshot = await snap(host);
    // Each turn carries its own usage (the offline model bills the growing history as input).
    expect(snapshot.turns.map((turn) => turn.usage.output)).toEqual([1001, 1002, 1003]);
    const inputs = snapshot.turns.map((turn) => turn.usage.input);
    expect(inputs[0]).toBeLessThan(inputs[1]!);
    expect(inputs[1]).toBeLessThan(inputs[2]!);
    expect(snapshot.contexts).toHaveLength(1);
    const mainRing = ringOf(snapshot, 0);
    expect(mainRing.display).toEqual({ type: "ring", placement: "composer-right" });
    expect(mainRing.content.unit).toBe("tokens");

    // Fork without any new answer: the fork's ring is there at once, sized like its copied history.
    const forked = await host.control({ type: "fork" });
    expect(forked).toMatchObject({ type: "fork", targetId: 1, sourceTargetId: 0 });
    snapshot = await snap(host);
    expect(snapshot.activeTargetId).toBe(1);
    expect(snapshot.contexts.map((context) => [context.targetId, context.kind, context.parentTargetId])).toEqual([[0, "main", null], [1, "fork", 0]]);
    const forkRing = ringOf(snapshot, 1);
    expect(forkRing.id).not.toBe(mainRing.id);
    expect(forkRing.content.value).toBeGreaterThan(3000);
    // The streamed snapshot followed the fork.
    const streamed = out.items().find((item) => item.metadata.kind === "agent-session")!.content as Snapshot;
    expect(streamed.contexts).toHaveLength(2);

    // The fork continues from the copied history; the main context is untouched.
    const { taskId: inFork } = (await host.control({ type: "submit", prompt: "four" })) as { taskId: string };
    await host.waitForTask(inFork);
    expect(model.calls.at(-1)!.messages.filter((message) => message.role === "user")).toHaveLength(4);
    snapshot = await snap(host);
    expect(snapshot.turns.at(-1)).toMatchObject({ targetId: 1, status: "completed" });

    // Reset: the fork starts over, its ring drops.
    await host.control({ type: "reset", targetId: 1 });
    snapshot = await snap(host);
    expect(ringOf(snapshot, 1).content.value).toBeLessThan(10);
    const { taskId: afterReset } = (await host.control({ type: "submit", prompt: "five" })) as { taskId: string };
    await host.waitForTask(afterReset);
    expect(model.calls.at(-1)!.messages.map((message) => message.role)).toEqual(["user"]);

    // Compaction of the main context: older messages fold into a summary, the ring shrinks.
    const before = ringOf(await snap(host), 0).content.value;
    const compacted = await host.control({ type: "compact", targetId: 0, keepLast: 2 });
    expect(compacted).toMatchObject({ type: "compact", targetId: 0, compacted: true });
    expect(ringOf(await snap(host), 0).content.value).toBeLessThan(before);
    expect(out.items().some((item) => item.metadata.kind === "agent-part" && item.metadata.partType === "compaction")).toBe(true);
    await host.control({ type: "select", targetId: 0 });
    const { taskId: afterCompact } = (await host.control({ type: "submit", prompt: "six" })) as { taskId: string };
    await host.waitForTask(afterCompact);
    const sent = model.calls.at(-1)!.messages;
    expect(JSON.stringify(sent[0])).toContain("Summary of the earlier conversation");
    expect(sent.filter((message) => message.role === "user").map((message) => message.content).slice(1)).toEqual(["three", "six"]);
    await host.close();
  });
});

function deployTool(calls: string[]): AgentTool {
  return {
    name: "deploy",
    label: "Deploy",
    description: "Deploys",
    parameters: Type.Object({ target: Type.String() }),
    async execute(_id, params) {
      calls.push((params as { target: string }).target);
      return { content: [{ type: "text", text: "deployed" }] };
    },
  };
}

/** Parent and child share the injected model; the script tells them apart by their first message. */
function delegationModel(childSteps: OfflineStep[], parentSteps: OfflineStep[]) {
  return createOfflineModel({ steps: (request: ModelRequest): OfflineStep => {
    const first = request.messages[0];
    const index = request.messages.filter((message) => message.role === "assistant").length;
    const script = first?.role === "user" && String(first.content).startsWith("child:") ? childSteps : parentSteps;
    return script[index] ?? { text: "(end)" };
  } });
}

describe("delegation", () => {
  it("HOST-6 AG-6 a subagent runs under the parent's tool permissions and model whitelist, as a child context with a numeric targetId", async () => {
    const dir = tempDir();
    const conv = conversation("delegate");
    const deployed: string[] = [];
    const model = delegationModel(
      [{ text: "Trying to write.", toolCalls: [{ id: "c-w", name: "write", arguments: { path: "x.txt", content: "hi" } }] }, { text: "child finished" }],
      [
        { toolCalls: [{ id: "p-1", name: "subagent", arguments: { task: "child: do it" } }, { id: "p-2", name: "subagent", arguments: { task: "child: other", model: "not-allowed" } }] },
        { text: "Parent done." },
      ],
    );
    const host = await createAgentSessionHost(conv, {
      projectId: "p1", agentStoreDir: dir, models: model, workdir: dir, permissionPolicy: "workspace-write",
      tools: ["read", "update_plan", "subagent", "deploy"],
      toolCatalog: [{ id: "deploy", autoApprove: true }],
      createTools: () => [deployTool(deployed)],
    });
    const { taskId } = (await host.control({ type: "submit", prompt: "delegate please" })) as { taskId: string };
    expect((await host.waitForTask(taskId)).status).toBe("completed");
    // The child could not write: the parent's permission list does not hold `write`.
    expect(existsSync(path.join(dir, "x.txt"))).toBe(false);
    const childRequest = model.calls.find((call) => String(call.messages[0]?.content).startsWith("child: do it"))!;
    expect(childRequest.tools.map((tool) => tool.name).sort()).toEqual(["ask_user", "deploy", "read", "update_plan"]);
    const childResult = model.calls.find((call) => call.messages.some((message) => message.role === "toolResult" && message.toolCallId === "c-w"))!;
    expect(JSON.stringify(childResult.messages)).toContain("tool_not_registered");
    // The parent got the child's answer; the model outside the whitelist failed the second call.
    const parentFinal = model.calls.find((call) => call.messages.some((message) => message.role === "toolResult" && message.toolCallId === "p-2"))!;
    const results = parentFinal.messages.filter((message) => message.role === "toolResult") as Array<{ toolCallId: string; isError: boolean; content: Array<{ text: string }> }>;
    expect(results.find((result) => result.toolCallId === "p-1")).toMatchObject({ isError: false, content: [{ text: "child finished" }] });
    expect(results.find((result) => result.toolCallId === "p-2")!.content[0]!.text).toContain("not in the injected model set");
    const snapshot = await snap(host);
    const children = snapshot.contexts.filter((context) => context.kind === "child");
    expect(children.map((child) => [child.targetId, child.parentTargetId])).toEqual([[1, 0], [2, 0]]);
    expect(children.every((child) => child.outputs[0]!.content.value >= 0)).toBe(true);
    // Parent-child metering: the turn carries its own usage and its children's apart.
    const turn = (snapshot.turns[0] as unknown as { usage: { total: number }; childUsage?: { total: number } });
    expect(turn.usage.total).toBeGreaterThan(0);
    expect(turn.childUsage?.total).toBeGreaterThan(0);
    await host.close();
  });

  it("AG-6 SES-8 a child's tool approval goes through the parent's approvals: the parent task waits, then resumes the child", async () => {
    const dir = tempDir();
    const conv = conversation("delegate-approval");
    const deployed: string[] = [];
    const permissions = createMemoryToolPermissions();
    const model = delegationModel(
      [{ toolCalls: [{ id: "c-d", name: "deploy", arguments: { target: "prod" } }] }, { text: "child deployed" }],
      [{ toolCalls: [{ id: "p-1", name: "subagent", arguments: { task: "child: deploy" } }] }, { text: "Parent done." }],
    );
    const host = await createAgentSessionHost(conv, {
      projectId: "p1", agentStoreDir: dir, models: model, workdir: dir, toolPermissions: permissions,
      tools: ["read", "update_plan", "subagent", "deploy"],
      toolCatalog: [{ id: "deploy" }],
      createTools: () => [deployTool(deployed)],
    });
    const { taskId } = (await host.control({ type: "submit", prompt: "delegate please" })) as { taskId: string };
    const waiting = await host.waitForTask(taskId);
    expect(waiting.status).toBe("waiting");
    expect(waiting.detail).toMatchObject({ request: { kind: "tool_approval", toolId: "deploy" } });
    expect(deployed).toEqual([]);
    permissions.resolve(permissions.pending()[0]!, { outcome: "approved" });
    await host.control({ type: "continue" });
    expect((await host.waitForTask(taskId)).status).toBe("completed");
    expect(deployed).toEqual(["prod"]);
    await host.close();
  });
});
