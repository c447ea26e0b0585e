import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createProjectCapabilityTools } from "../../src/app/capabilities/project-capabilities.js";
import { toolAccess, validatePermissionPolicy } from "../../src/domain/agent/permission-policy.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { isSteamharnessError, UserInputRequiredError } from "../../src/domain/errors.js";
import { withApprovedCall } from "../../src/app/agent/approved-call.js";
import { createToolApprovalGate } from "../../src/domain/approval-gate.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { harness, offlineNode, runNode } from "./helpers.js";

const echo = (name: string, calls: string[]): AgentTool => ({
  name, label: name, description: `echo ${name}`, parameters: Type.Object({ text: Type.String() }),
  async execute(_id, params) {
    calls.push((params as { text: string }).text);
    return { content: [{ type: "text", text: `echo: ${(params as { text: string }).text}` }], details: { resourceCard: { kind: "kv", operation: "read", title: "card", target: { source: "current", scope: "project", key: "echo" } } } };
  },
});
const offered = (model: ReturnType<typeof createOfflineModel>) => model.calls[0]!.tools.map((tool) => tool.name).sort();

describe("tool governance", () => {
  it("AG-6 presets decide which built-in tools are offered and which ask", () => {
    expect(["read", "write", "edit", "bash", "grep", "find", "ls"].map((tool) => toolAccess("read-only", tool, "build"))).toEqual(["allow", "hidden", "hidden", "hidden", "allow", "allow", "allow"]);
    expect(["write", "edit", "bash"].map((tool) => toolAccess("workspace-write", tool, "build"))).toEqual(["allow", "allow", "ask"]);
    expect(["write", "edit", "bash"].map((tool) => toolAccess("workspace", tool, "build"))).toEqual(["allow", "allow", "ask"]);
    expect(["write", "edit", "bash"].map((tool) => toolAccess("ask", tool, "build"))).toEqual(["ask", "ask", "ask"]);
    expect(["write", "edit", "bash"].map((tool) => toolAccess("full", tool, "build"))).toEqual(["allow", "allow", "allow"]);
    expect(["write", "edit", "bash"].map((tool) => toolAccess("full", tool, "plan"))).toEqual(["hidden", "hidden", "hidden"]);
    expect(toolAccess("read-only", "update_plan", "build")).toBe("allow");
  });

  it("AG-6 explicit lists name every tool; update_plan must be declared for plan mode", () => {
    const list = { allow: ["read", "ls"], ask: ["bash"] };
    expect(["read", "ls", "bash", "write", "update_plan", "ask_user"].map((tool) => toolAccess(list, tool, "build"))).toEqual(["allow", "allow", "ask", "hidden", "hidden", "allow"]);
    expect(() => validatePermissionPolicy(list, "plan")).toThrow(/update_plan/);
    expect(() => validatePermissionPolicy({ allow: ["read", "update_plan"] }, "plan")).not.toThrow();
    expect(() => validatePermissionPolicy({ allow: ["raed"] }, "build")).toThrow(/raed/);
    expect(() => validatePermissionPolicy("yolo" as never, "build")).toThrow(/yolo/);
    expect(() => createAgentNode({ permissionPolicy: { allow: ["read"] }, mode: "plan" })).toThrow(/update_plan/);
  });

  it("AG-6 the model is offered exactly what the policy allows", async () => {
    const h = harness();
    const readOnly = offlineNode([{ text: "x" }], { h, permissionPolicy: "read-only" });
    await runNode(readOnly.node, { prompt: "p" }, h.context("run-ro"));
    expect(offered(readOnly.model)).toEqual(["ask_user", "find", "grep", "ls", "read", "update_plan"]);
    const list = offlineNode([{ text: "x" }], { h, permissionPolicy: { allow: ["read"], ask: ["bash"] }, sessionKey: "l" });
    await runNode(list.node, { prompt: "p" }, h.context("run-list"));
    expect(offered(list.model)).toEqual(["ask_user", "bash", "read"]);
    const only = offlineNode([{ text: "x" }], { h, permissionPolicy: "full", tools: ["read", "write"], sessionKey: "o" });
    await runNode(only.node, { prompt: "p" }, h.context("run-only"));
    expect(offered(only.model)).toEqual(["ask_user", "read", "write"]);
  });

  it("AG-6 workspace-write runs file edits without asking and asks before bash", async () => {
    const h = harness();
    const { node } = offlineNode(
      [{ toolCalls: [{ id: "w", name: "write", arguments: { path: "ok.txt", content: "ok" } }, { id: "b", name: "bash", arguments: { command: "touch ran.txt" } }] }, { text: "done" }],
      { h, permissionPolicy: "workspace-write" },
    );
    const first = await runNode(node, { prompt: "p" }, h.context("run-ww"));
    expect(existsSync(path.join(h.workdir, "ok.txt"))).toBe(true);
    expect((first.error as UserInputRequiredError).request).toMatchObject({ toolId: "bash" });
    expect(existsSync(path.join(h.workdir, "ran.txt"))).toBe(false);
    h.permissions.resolve((first.error as UserInputRequiredError).requestId, { outcome: "approved" });
    expect((await runNode(node, { prompt: "p" }, h.context("run-ww"))).error).toBeUndefined();
    expect(existsSync(path.join(h.workdir, "ran.txt"))).toBe(true);
  });

  it("CAP-3 extra tools are governed by the host catalog: not registered, disabled, auto-approved, asked", async () => {
    const h = harness();
    const calls: string[] = [];
    const tools = [echo("undeclared", calls), echo("disabled", calls), echo("auto", calls), echo("asked", calls)];
    const catalog = [{ id: "disabled", enabled: false }, { id: "auto", autoApprove: true }, { id: "asked" }];
    const model = createOfflineModel({
      steps: [
        { toolCalls: [{ id: "u", name: "undeclared", arguments: { text: "u" } }, { id: "a", name: "auto", arguments: { text: "a" } }, { id: "k", name: "asked", arguments: { text: "k" } }] },
        { text: "done" },
      ],
    });
    const node = createAgentNode({ models: model, extraTools: tools, workdir: h.workdir, permissionPolicy: "full" });
    const first = await runNode(node, { prompt: "p" }, h.context("run-cat", { tools: catalog }));
    expect(offered(model)).not.toContain("disabled");
    expect(offered(model)).toEqual(expect.arrayContaining(["undeclared", "auto", "asked"]));
    expect(calls).toEqual(["a"]);
    const pause = first.error as UserInputRequiredError;
    expect(pause.request).toMatchObject({ kind: "tool_approval", toolId: "asked" });
    h.permissions.resolve(pause.requestId, { outcome: "approved" });
    const second = await runNode(node, { prompt: "p" }, h.context("run-cat", { tools: catalog }));
    expect(second.error).toBeUndefined();
    expect(calls).toEqual(["a", "k"]);
    const results = model.calls[1]!.messages.filter((message) => message.role === "toolResult");
    expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([["u", true], ["a", false], ["k", false]]);
    expect(results[0]!.content[0]!.text).toMatch(/tool_not_registered/);
    // CAP-9: a custom tool's resource card is passed through on its row.
    const row = second.items.find((item) => item.metadata.tool === "auto")!;
    expect(row.content).toMatchObject({ resourceCard: { kind: "kv", title: "card" } });
  });

  it("CAP-3 extraToolCatalog add catalog entries for the agent's own tools", async () => {
    const h = harness();
    const calls: string[] = [];
    const model = createOfflineModel({ steps: [{ toolCalls: [{ name: "mine", arguments: { text: "m" } }] }, { text: "done" }] });
    const node = createAgentNode({ models: model, extraTools: [echo("mine", calls)], extraToolCatalog: [{ id: "mine", autoApprove: true }], workdir: h.workdir });
    expect((await runNode(node, { prompt: "p" }, h.context("run-defs"))).error).toBeUndefined();
    expect(calls).toEqual(["m"]);
  });

  it("AG-5 createTools runs before every run with its context; close runs on success and on failure", async () => {
    const h = harness();
    const events: string[] = [];
    let n = 0;
    const node = createAgentNode({
      models: createOfflineModel({ steps: (request) => (request.messages.at(-1)!.content === "fail" ? { error: { message: "nope", kind: "recovery", retryable: false } } : { text: "ok" }) }),
      workdir: h.workdir,
      createTools: (context) => {
        const run = ++n;
        events.push(`create ${run} ${context.runId}`);
        return { tools: [echo("made", [])], close: () => void events.push(`close ${run}`) };
      },
    });
    expect((await runNode(node, { prompt: "ok" }, h.context("run-ct-1"))).error).toBeUndefined();
    const failed = await runNode(node, { prompt: "fail" }, h.context("run-ct-2"));
    expect(isSteamharnessError(failed.error, "model_error")).toBe(true);
    expect(events).toEqual(["create 1 run-ct-1", "close 1", "create 2 run-ct-2", "close 2"]);
  });

  it("invalid tool arguments become an error result without running the tool", async () => {
    const h = harness();
    const calls: string[] = [];
    const model = createOfflineModel({ steps: [{ toolCalls: [{ name: "mine", arguments: { wrong: 1 } }] }, { text: "done" }] });
    const node = createAgentNode({ models: model, extraTools: [echo("mine", calls)], extraToolCatalog: [{ id: "mine", autoApprove: true }], workdir: h.workdir });
    await runNode(node, { prompt: "p" }, h.context("run-args"));
    expect(calls).toEqual([]);
    expect(model.calls[1]!.messages.at(-1)).toMatchObject({ role: "toolResult", isError: true, content: [{ text: expect.stringContaining("input_validation") }] });
  });

  it("CAP-3 capability tools from createTools run through the catalog; reserved usage keys stay the runtime's (CAP-5, AG-2)", async () => {
    const h = harness();
    const kv = "workflow-kv_kv_store";
    const model = createOfflineModel({
      steps: [
        { toolCalls: [{ id: "ok", name: kv, arguments: { action: "set", key: "notes.status", value: "done" } }, { id: "bad", name: kv, arguments: { action: "set", key: "tokenUsage.total", value: 0 } }] },
        { text: "done" },
      ],
    });
    const node = createAgentNode({ models: model, workdir: h.workdir, createTools: (context) => createProjectCapabilityTools({ context }) });
    const result = await runNode(node, { prompt: "p" }, h.context("run-cap", { tools: [{ id: kv, autoApprove: true }] }));
    expect(result.error).toBeUndefined();
    expect((await h.storage.kv.get({ projectId: "project-1" }, "notes.status"))?.value).toBe("done");
    const results = model.calls[1]!.messages.filter((message) => message.role === "toolResult");
    expect(results.map((message) => [message.toolCallId, message.isError])).toEqual([["ok", false], ["bad", true]]);
    expect(results[1]!.content[0]!.text).toMatch(/input_validation/);
    // The usage total is the runtime's: one response so far was counted, not overwritten with 0.
    expect(((await h.storage.kv.get({ projectId: "project-1" }, "tokenUsage.total"))?.value as { total: number }).total).toBeGreaterThan(0);
    const row = result.items.find((item) => (item.content as { toolCallId?: string }).toolCallId === "ok")!;
    expect(row.content).toMatchObject({ resourceCard: { kind: "kv", operation: "write" } });
  });
});

describe("CAP-11 one approval per call", () => {
  it("CAP-11 the capability seed's example (approve wired to createToolApprovalGate inside createAgentNode) asks once per call, and resumes with that decision", async () => {
    const h = harness();
    const kv = "workflow-kv_kv_store";
    const model = createOfflineModel({
      steps: [{ toolCalls: [{ id: "call-kv", name: kv, arguments: { action: "set", key: "notes.status", value: "done" } }] }, { text: "Saved." }],
    });
    // The seed's example, verbatim but for the model.
    const approval = createToolApprovalGate();
    const node = createAgentNode({
      models: model,
      workdir: h.workdir,
      async createTools(context) {
        return createProjectCapabilityTools({
          context,
          globalMemory: true,
          approve: (toolId, args) => approval.approve({ name: toolId, arguments: args }, context),
        });
      },
    });
    const context = () => h.context("run-once", { tools: [{ id: kv }] });
    const first = await runNode(node, { prompt: "Save the status" }, context());
    expect(first.error).toBeInstanceOf(UserInputRequiredError);
    expect(h.permissions.requests).toHaveLength(1);
    const requestId = (first.error as UserInputRequiredError).requestId;
    expect(h.permissions.requests[0]).toMatchObject({ requestId, toolId: kv, toolCallId: "call-kv" });

    h.permissions.resolve(requestId, { outcome: "approved" });
    const resumed = await runNode(node, { prompt: "Save the status" }, context());
    expect(resumed.error).toBeUndefined();
    // One more ask of the same request (the resume reads the decision); never a second request id.
    expect(new Set(h.permissions.requests.map((request) => request.requestId))).toEqual(new Set([requestId]));
    expect(h.permissions.pending()).toEqual([]);
    expect((await h.storage.kv.get({ projectId: "project-1" }, "notes.status"))?.value).toBe("done");
  });

  it("CAP-11 the decision belongs to the approved call's own execution: another run making the identical call on the same port at the same moment is asked", async () => {
    const h = harness();
    const approval = createToolApprovalGate();
    let executions = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const call = { name: "slow_write", arguments: { key: "k" } };
    const node = (id: string) =>
      createAgentNode({
        models: createOfflineModel({ steps: [{ toolCalls: [{ id, ...call }] }, { text: "Written." }] }),
        workdir: h.workdir,
        async createTools(context) {
          const tool: AgentTool = {
            name: "slow_write", label: "slow write", description: "writes slowly", parameters: Type.Object({ key: Type.String() }),
            async execute(_id, params) {
              // The seed's wiring: the tool asks the gate itself before its effect.
              await approval.approve({ name: "slow_write", arguments: params }, context);
              executions += 1;
              await barrier;
              return { content: [{ type: "text", text: "written" }] };
            },
          };
          return [tool];
        },
      });
    // Two conversations (two sessions), one approval port: the runs may overlap.
    const grantsA = { tools: [{ id: "slow_write" }], conversationId: "conversation-a" };
    const grantsB = { tools: [{ id: "slow_write" }], conversationId: "conversation-b" };
    const nodeA = node("call-a");
    const paused = await runNode(nodeA, { prompt: "write" }, h.context("run-a", grantsA));
    h.permissions.resolve((paused.error as UserInputRequiredError).requestId, { outcome: "approved" });
    const runA = runNode(nodeA, { prompt: "write" }, h.context("run-a", grantsA));
    while (executions === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // Run A's approved call is running now, on the same approval port.
    const runB = runNode(node("call-b"), { prompt: "write" }, h.context("run-b", grantsB));
    let poll: NodeJS.Timeout | undefined;
    const secondExecution = new Promise<"ran">((resolve) => (poll = setInterval(() => executions > 1 && resolve("ran"), 5)));
    const settledB = await Promise.race([runB, secondExecution]);
    clearInterval(poll);
    release();
    expect(settledB).not.toBe("ran");
    expect((settledB as Awaited<typeof runB>).error).toBeInstanceOf(UserInputRequiredError);
    expect((await runA).error).toBeUndefined();
    expect(executions).toBe(1);
    // One request per run; the tool's own ask inside run A added none.
    expect(new Set(h.permissions.requests.map((request) => request.runId))).toEqual(new Set(["run-a", "run-b"]));
    expect(new Set(h.permissions.requests.map((request) => request.requestId)).size).toBe(2);
  });

  it("CAP-11 CAP-3 a createTools tool declared only in extraToolCatalog finds itself in its context's catalog when it asks the gate itself", async () => {
    const h = harness();
    const approval = createToolApprovalGate();
    const ran: string[] = [];
    const node = createAgentNode({
      models: createOfflineModel({ steps: [{ toolCalls: [{ id: "call-own", name: "own_write", arguments: { text: "x" } }] }, { text: "done" }] }),
      workdir: h.workdir,
      extraToolCatalog: [{ id: "own_write" }],
      async createTools(context) {
        const tool: AgentTool = {
          name: "own_write", label: "own write", description: "writes", parameters: Type.Object({ text: Type.String() }),
          async execute(_id, params) {
            await approval.approve({ name: "own_write", arguments: params }, context);
            ran.push((params as { text: string }).text);
            return { content: [{ type: "text", text: "written" }] };
          },
        };
        return [tool];
      },
    });
    const paused = await runNode(node, { prompt: "write" }, h.context("run-own"));
    h.permissions.resolve((paused.error as UserInputRequiredError).requestId, { outcome: "approved" });
    const resumed = await runNode(node, { prompt: "write" }, h.context("run-own"));
    expect(resumed.error).toBeUndefined();
    const row = resumed.items.find((item) => (item.content as { tool?: string }).tool === "own_write");
    expect((row?.content as { status: string }).status).toBe("completed");
    expect(ran).toEqual(["x"]);
    expect(new Set(h.permissions.requests.map((request) => request.requestId)).size).toBe(1);
  });

  it("CAP-11 outside a call the runtime approved, the gate still asks (and a denial by the catalog still applies)", async () => {
    const h = harness();
    const approval = createToolApprovalGate();
    const context = h.context("run-direct", { tools: [{ id: "workflow-kv_kv_store" }, { id: "off", enabled: false }] });
    await expect(approval.approve({ name: "workflow-kv_kv_store", arguments: { action: "get", key: "a" } }, context)).rejects.toMatchObject({ code: "user_input_required" });
    await expect(withApprovedCall(context.toolPermissions, { name: "off", arguments: {} }, () => approval.approve({ name: "off", arguments: {} }, context))).rejects.toMatchObject({ code: "approval_denied" });
    await withApprovedCall(context.toolPermissions, { name: "workflow-kv_kv_store", arguments: { action: "get", key: "a" } }, () =>
      approval.approve({ name: "workflow-kv_kv_store", arguments: { key: "a", action: "get" } }, context),
    );
    // Different arguments are a different call.
    await expect(
      withApprovedCall(context.toolPermissions, { name: "workflow-kv_kv_store", arguments: { action: "get", key: "a" } }, () => approval.approve({ name: "workflow-kv_kv_store", arguments: { action: "get", key: "b" } }, context)),
    ).rejects.toMatchObject({ code: "user_input_required" });
    expect(h.permissions.requests).toHaveLength(2);
  });
});
