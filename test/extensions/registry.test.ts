import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import type { AgentSessionHooks } from "../../src/app/agent/extensions/types.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { createAgentSessionHost } from "../../src/compose/session-host.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { harness, offlineNode, ofKind, runNode } from "../agent/helpers.js";
import { conversation, tempDir } from "../session-host/helpers.js";

const echo = (log: string[]): AgentTool => ({
  name: "echo",
  label: "echo",
  description: "Echoes text",
  parameters: Type.Object({ text: Type.String() }),
  async execute(_id, params) {
    log.push((params as { text: string }).text);
    return { content: [{ type: "text", text: `echo ${(params as { text: string }).text}` }] };
  },
});
const tools = [{ id: "echo", autoApprove: true }, { id: "deploy" }];

describe("EXT-2 session.registry hooks", () => {
  it("EXT-2 hooks run in order around model requests and tool calls; a denial reaches the model, a rewrite changes the arguments", async () => {
    const h = harness();
    const seen: string[] = [];
    const ran: string[] = [];
    const first: AgentSessionHooks = {
      beforeModelRequest: ({ step }) => void seen.push(`A:before-model:${step}`),
      afterModelResponse: ({ step, toolCalls }) => void seen.push(`A:after-model:${step}:${toolCalls}`),
      beforeToolCall: (call) => {
        seen.push(`A:before-tool:${call.toolCallId}`);
        if (call.arguments.text === "secret") return { deny: "secrets stay home" };
        if (call.arguments.text === "shout") return { arguments: { text: "SHOUT" } };
        return undefined;
      },
      afterToolCall: (call) => void seen.push(`A:after-tool:${call.toolCallId}:${call.text}`),
      onRunEnd: ({ status }) => void seen.push(`A:end:${status}`),
    };
    const second: AgentSessionHooks = { beforeToolCall: (call) => void seen.push(`B:before-tool:${call.toolCallId}:${String(call.arguments.text)}`), onRunEnd: ({ status }) => void seen.push(`B:end:${status}`) };
    const { node, model } = offlineNode(
      [{ toolCalls: [{ id: "t1", name: "echo", arguments: { text: "secret" } }, { id: "t2", name: "echo", arguments: { text: "shout" } }] }, { text: "ok" }],
      { h, extraTools: [echo(ran)], session: { registry: { hooks: [first, second] } } },
    );
    const outcome = await runNode(node, { prompt: "go" }, h.context("run-hooks", { tools }));
    expect(outcome.error).toBeUndefined();
    expect(ran).toEqual(["SHOUT"]);
    const denied = model.calls[1]!.messages.find((message) => message.role === "toolResult" && message.toolCallId === "t1");
    expect(denied?.role === "toolResult" && denied.content[0]!.text).toBe("[approval_denied] echo was denied by a session hook: secrets stay home");
    expect(seen).toEqual([
      "A:before-model:0", "A:after-model:0:2",
      "A:before-tool:t1",
      "A:before-tool:t2", "B:before-tool:t2:SHOUT", "A:after-tool:t2:echo SHOUT",
      "A:before-model:1", "A:after-model:1:0",
      "A:end:completed", "B:end:completed",
    ]);
  });

  it("EXT-2 beforeToolCall decides before the approval: the person approves the rewritten arguments, the tool runs with them, and a denied call never asks", async () => {
    const h = harness();
    const ran: string[] = [];
    const asked: string[] = [];
    const hooks: AgentSessionHooks = {
      beforeToolCall: (call) => {
        if (call.arguments.text === "prod") return { deny: "not on a Friday" };
        return { arguments: { text: `${String(call.arguments.text)} (dry run)` } };
      },
      onPause: ({ request }) => void asked.push(JSON.stringify(request.arguments)),
    };
    const steps = [{ toolCalls: [{ id: "d0", name: "deploy", arguments: { text: "prod" } }, { id: "d1", name: "deploy", arguments: { text: "staging" } }] }, { text: "ok" }];
    const options = { h, extraTools: [{ ...echo(ran), name: "deploy" }], session: { registry: { hooks: [hooks] } } };
    const { node } = offlineNode(steps, options);
    const paused = await runNode(node, { prompt: "deploy" }, h.context("run-before-approval", { tools }));
    expect(isSteamharnessError(paused.error, "user_input_required")).toBe(true);
    // Only the call the hook let through asks, with the arguments the hook rewrote.
    expect(asked).toEqual([JSON.stringify({ text: "staging (dry run)" })]);
    expect((paused.error as { request: { toolCallId: string } }).request.toolCallId).toBe("d1");
    h.permissions.resolve((paused.error as { requestId: string }).requestId, { outcome: "approved" });
    const { node: again, model } = offlineNode(steps, options);
    const resumed = await runNode(again, { prompt: "deploy" }, h.context("run-before-approval", { tools }));
    expect(resumed.error).toBeUndefined();
    expect(ran).toEqual(["staging (dry run)"]);
    const results = model.calls.at(-1)!.messages.filter((message) => message.role === "toolResult").map((message) => message.role === "toolResult" && message.content[0]!.text);
    expect(results).toContain("[approval_denied] deploy was denied by a session hook: not on a Friday");
  });

  it("EXT-2 onPause runs when the run waits for a person; a throwing hook fails the run with an agent-error (hook_failed)", async () => {
    const h = harness();
    const pauses: string[] = [];
    const { node } = offlineNode([{ toolCalls: [{ id: "d1", name: "deploy", arguments: { text: "x" } }] }, { text: "ok" }], {
      h,
      extraTools: [{ ...echo([]), name: "deploy" }],
      session: { registry: { hooks: [{ onPause: ({ requestId }) => void pauses.push(requestId) }] } },
    });
    const paused = await runNode(node, { prompt: "deploy" }, h.context("run-pause", { tools }));
    expect(isSteamharnessError(paused.error, "user_input_required")).toBe(true);
    expect(pauses).toEqual([(paused.error as { requestId: string }).requestId]);

    const ran: string[] = [];
    const { node: failing } = offlineNode([{ toolCalls: [{ id: "e1", name: "echo", arguments: { text: "hi" } }] }, { text: "never" }], {
      h,
      sessionKey: "failing",
      extraTools: [echo(ran)],
      session: { registry: { hooks: [{ afterToolCall: () => { throw new Error("audit log unreachable"); } }] } },
    });
    const failed = await runNode(failing, { prompt: "go" }, h.context("run-fail", { tools }));
    expect(isSteamharnessError(failed.error, "hook_failed")).toBe(true);
    const errors = ofKind(failed.items, "agent-error");
    expect(errors).toHaveLength(1);
    expect(String(errors[0]!.content)).toContain("the afterToolCall hook failed: audit log unreachable");
    const { node: failingModel } = offlineNode([{ text: "never" }], { h, sessionKey: "failing-model", session: { registry: { hooks: [{ beforeModelRequest: () => { throw new Error("quota"); } }] } } });
    const modelFailed = await runNode(failingModel, { prompt: "go" }, h.context("run-fail-model", { tools }));
    expect(isSteamharnessError(modelFailed.error, "hook_failed")).toBe(true);
    expect(ofKind(modelFailed.items, "agent-error")).toHaveLength(1);
  });
});

describe("EXT-2 session.registry tasks", () => {
  it("EXT-2 a task runs under the host's lease with durable state: it survives suspend/resume and stops with the session", async () => {
    const dir = tempDir("ext2-");
    const conv = conversation("ext2-task");
    const runs: Array<{ state: unknown }> = [];
    let finished = false;
    const counter = {
      name: "counter",
      async run({ signal, state, save }: { signal: AbortSignal; state: unknown; save(state: unknown): Promise<void> }) {
        runs.push({ state });
        let n = typeof state === "number" ? state : 0;
        while (!signal.aborted) {
          n++;
          await save(n as never);
          if (n === 3 || n === 5) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        if (n === 3) await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        if (n === 5) finished = true;
      },
    };
    const options = { projectId: "p1", agentStoreDir: dir, models: createOfflineModel({ steps: [{ text: "hi" }] }), session: { registry: { tasks: [counter] } } };
    const host = await createAgentSessionHost(conv, options);
    // The task reaches 3 and waits; suspending the host stops it (its state stays saved).
    for (let i = 0; i < 500 && runs.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await host.suspend();
    const resumed = await createAgentSessionHost(conv, { ...options, resume: true });
    await resumed.idle();
    for (let i = 0; i < 1000 && !finished; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await resumed.close();
    expect(runs.map((run) => run.state)).toEqual([null, 3]);
    // Finished (returned at 5): a third host does not run it again.
    const third = await createAgentSessionHost(conv, { ...options, resume: true });
    await third.close();
    expect(runs).toHaveLength(2);
  });
});
