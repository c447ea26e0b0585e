import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { createMemorySessionStore } from "../../src/adapters/driven/memory/memory-session-store.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { UNKNOWN_OUTCOME_TEXT } from "../../src/app/agent/tool-step.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { isSteamharnessError, UserInputRequiredError } from "../../src/domain/errors.js";
import type { SessionEventInput, SessionStore } from "../../src/ports/session-store.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { harness, onStore, offlineNode, ofKind, runNode } from "./helpers.js";

const counterTool = (file: string, replay: "safe" | "never"): AgentTool => ({
  name: `count_${replay}`,
  label: "Count",
  description: "Appends a line to a side-effect file",
  parameters: Type.Object({}),
  replay,
  async execute() {
    writeFileSync(file, `${readFileSafe(file)}x`);
    return { content: [{ type: "text", text: "counted" }] };
  },
});
const readFileSafe = (file: string): string => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};

/** A store that refuses to append events of one type once: a crash right before that write. */
function crashingBefore(store: SessionStore, type: SessionEventInput["type"]): SessionStore {
  let crashed = false;
  return {
    ...store,
    address: store.address,
    async append(events) {
      if (!crashed && events.some((event) => event.type === type)) {
        crashed = true;
        throw new Error("simulated crash");
      }
      return store.append(events);
    },
  };
}

describe("replay, usage and recovery", () => {
  it("SES-3 re-running the same runId rebuilds the same items without calling the model or tools again", async () => {
    const h = harness();
    const side = path.join(h.workdir, "side.txt");
    const { node, model } = offlineNode(
      [
        { reasoning: "hmm", text: "Counting.", toolCalls: [{ name: "count_never", arguments: {} }] },
        { text: "Counted once." },
      ],
      { h, extraTools: [counterTool(side, "never")] },
    );
    const context = () => h.context("run-replay", { tools: [{ id: "count_never", autoApprove: true }] });
    const first = await runNode(node, { prompt: "count" }, context());
    expect(first.error).toBeUndefined();
    const totalAfterFirst = await context().tokenUsage.total();
    const second = await runNode(node, { prompt: "count" }, context());
    expect(second.items).toEqual(first.items);
    expect(second.output).toEqual(first.output);
    expect(model.calls).toHaveLength(2);
    expect(readFileSync(side, "utf8")).toBe("x");
    expect(await context().tokenUsage.total()).toEqual(totalAfterFirst);
  });

  it("AG-2 token usage per model response goes to context.tokenUsage under the reserved KV keys, with stable entry ids", async () => {
    const h = harness();
    const { node } = offlineNode(
      [
        { text: "One.", toolCalls: [{ name: "ls", arguments: {} }], usage: { input: 100, output: 10 } },
        { text: "Two.", usage: { input: 150, output: 20 } },
      ],
      { h },
    );
    await runNode(node, { prompt: "p" }, h.context("run-usage"));
    const context = h.context("run-usage");
    expect(await context.tokenUsage.total()).toMatchObject({ input: 250, output: 30, total: 280 });
    const total = await h.storage.kv.get({ projectId: "project-1" }, "tokenUsage.total");
    expect(total?.value).toMatchObject({ input: 250, output: 30, total: 280 });
    const entries = await h.storage.kv.list({ projectId: "project-1" }, { prefix: "tokenUsage.entry." });
    expect(entries.items).toHaveLength(2);
    expect(entries.items.every((entry) => (entry.value as { runId: string }).runId === "run-usage")).toBe(true);
    // Resumed or re-sent: nothing is counted twice.
    await runNode(node, { prompt: "p" }, h.context("run-usage"));
    expect(await context.tokenUsage.total()).toMatchObject({ input: 250, output: 30, total: 280 });
  });

  it("AG-2 usage is recorded once across a pause and resume", async () => {
    const h = harness();
    const { node } = offlineNode(
      [{ toolCalls: [{ name: "write", arguments: { path: "u.txt", content: "u" } }], usage: { input: 40, output: 4 } }, { text: "ok", usage: { input: 60, output: 6 } }],
      { h, permissionPolicy: "ask" },
    );
    const first = await runNode(node, { prompt: "p" }, h.context("run-usage-pause"));
    expect(await h.context("x").tokenUsage.total()).toMatchObject({ total: 44 });
    h.permissions.resolve((first.error as { requestId: string }).requestId, { outcome: "approved" });
    await runNode(node, { prompt: "p" }, h.context("run-usage-pause"));
    expect(await h.context("x").tokenUsage.total()).toMatchObject({ input: 100, output: 10, total: 110 });
  });

  it("SES-4 a tool whose outcome is unknown is not redone unless safe; the model is told", async () => {
    const h = harness();
    const never = path.join(h.workdir, "never.txt");
    const safe = path.join(h.workdir, "safe.txt");
    const store = createMemorySessionStore();
    const steps = [
      { toolCalls: [{ id: "c1", name: "count_never", arguments: {} }, { id: "c2", name: "count_safe", arguments: {} }] },
      { text: "Checked." },
    ];
    const tools = [counterTool(never, "never"), counterTool(safe, "safe")];
    const catalog = [{ id: "count_never", autoApprove: true }, { id: "count_safe", autoApprove: true }];
    // First process: crashes right before committing the first tool result.
    const crashing = createAgentNode(onStore({ models: createOfflineModel({ steps }), workdir: h.workdir, extraTools: tools, sessionStore: crashingBefore(store, "tool_result") }));
    const crashed = await runNode(crashing, { prompt: "p" }, h.context("run-crash", { tools: catalog }));
    expect(isSteamharnessError(crashed.error, "storage_failure")).toBe(true);
    expect(ofKind(crashed.items, "agent-error")).toHaveLength(1);
    expect(readFileSync(never, "utf8")).toBe("x");
    // Second process: same store, same run id.
    const model = createOfflineModel({ steps });
    const resumed = createAgentNode(onStore({ models: model, workdir: h.workdir, extraTools: tools, sessionStore: store }));
    const result = await runNode(resumed, { prompt: "p" }, h.context("run-crash", { tools: catalog }));
    expect(result.error).toBeUndefined();
    expect(readFileSync(never, "utf8")).toBe("x");
    expect(readFileSync(safe, "utf8")).toBe("x");
    const results = model.calls[0]!.messages.filter((message) => message.role === "toolResult");
    expect(results).toMatchObject([
      { toolCallId: "c1", isError: true, content: [{ text: UNKNOWN_OUTCOME_TEXT }] },
      { toolCallId: "c2", isError: false, content: [{ text: "counted" }] },
    ]);
  });

  it("SES-5 a failing session store ends the run with agent-error and never runs without history", async () => {
    const h = harness();
    const broken: SessionStore = {
      ...createMemorySessionStore(),
      async readRun() {
        throw new Error("disk is read-only");
      },
    };
    const model = createOfflineModel({ steps: [{ text: "should not be asked" }] });
    const node = createAgentNode(onStore({ models: model, workdir: h.workdir, sessionStore: broken }));
    const result = await runNode(node, { prompt: "p" }, h.context("run-broken"));
    expect(isSteamharnessError(result.error, "storage_failure")).toBe(true);
    expect(ofKind(result.items, "agent-error")[0]!.content).toContain("disk is read-only");
    expect(model.calls).toHaveLength(0);
  });

  it("a later run sees the earlier runs' conversation, with unfinished tool calls closed", async () => {
    const h = harness();
    const { node, model } = offlineNode(
      [{ toolCalls: [{ id: "w1", name: "write", arguments: { path: "z.txt", content: "z" } }] }, { text: "Second run answer." }],
      { h, permissionPolicy: "ask" },
    );
    await runNode(node, { prompt: "first" }, h.context("run-a"));
    const second = await runNode(node, { prompt: "second" }, h.context("run-b"));
    expect(second.error).toBeUndefined();
    const request = model.calls[1]!;
    expect(request.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "user"]);
    expect(request.messages[2]).toMatchObject({ toolCallId: "w1", isError: true });
    expect(request.requestId).not.toBe(model.calls[0]!.requestId);
  });

  it("SES-8 a tool that pauses by itself (after its catalog approval) runs again on resume, not as an unknown outcome", async () => {
    const h = harness();
    let calls = 0;
    let answered = false;
    const asking: AgentTool = {
      name: "asking", label: "Asking", description: "Needs its own confirmation", parameters: Type.Object({}),
      async execute() {
        calls++;
        if (!answered) throw new UserInputRequiredError("own-request", { kind: "form" });
        return { content: [{ type: "text", text: "confirmed" }] };
      },
    };
    const { node, model } = offlineNode([{ toolCalls: [{ id: "t1", name: "asking", arguments: {} }] }, { text: "ok" }], { h, extraTools: [asking] });
    const catalog = { tools: [{ id: "asking" }] };
    const first = await runNode(node, { prompt: "p" }, h.context("run-self-pause", catalog));
    const approval = first.error as UserInputRequiredError;
    expect(approval.request).toMatchObject({ kind: "tool_approval", toolId: "asking" });
    h.permissions.resolve(approval.requestId, { outcome: "approved" });
    const second = await runNode(node, { prompt: "p" }, h.context("run-self-pause", catalog));
    expect((second.error as UserInputRequiredError).requestId).toBe("own-request");
    answered = true;
    const third = await runNode(node, { prompt: "p" }, h.context("run-self-pause", catalog));
    expect(third.error).toBeUndefined();
    expect(calls).toBe(2);
    expect(model.calls[1]!.messages.at(-1)).toMatchObject({ role: "toolResult", isError: false, content: [{ text: "confirmed" }] });
  });
});
