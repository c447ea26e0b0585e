import { existsSync, readdirSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { readExecutionHistory } from "../../src/app/agent/execution-history.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import type { SessionStore } from "../../src/ports/session-store.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { runProjectCapabilityAction } from "../../src/app/capabilities/project-capabilities.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { harness, onStore, runNode } from "./helpers.js";

const answering = () => createOfflineModel({ steps: (request) => ({ text: `answer ${request.messages.length}` }) });

describe("node execution history (AG-3 historyLimit, issue 6 item 9)", () => {
  it("SES-1 historyLimit bounds the node's execution history to the newest runs", async () => {
    const h = harness();
    const node = createAgentNode({ models: answering(), workdir: h.workdir, historyLimit: 3 });
    for (let i = 1; i <= 5; i++) await runStreamNode(node, { prompt: `question ${i}` }, h.context(`run-${i}`, { conversationId: "c1" }));
    const history = await node.history(h.context("any", { conversationId: "c1" }));
    expect(history.map((entry) => [entry.runId, entry.status, entry.prompt])).toEqual([
      ["run-3", "completed", "question 3"],
      ["run-4", "completed", "question 4"],
      ["run-5", "completed", "question 5"],
    ]);
    // The same log read with another bound; the default is 50.
    expect((await readExecutionHistory(h.context("any", { conversationId: "c1" }), { limit: 2 })).map((entry) => entry.runId)).toEqual(["run-4", "run-5"]);
    expect(await readExecutionHistory(h.context("any", { conversationId: "c1" }))).toHaveLength(5);
    expect(await readExecutionHistory(h.context("any", { conversationId: "other" }))).toEqual([]);
  });

  it("SES-3 re-sending a run id keeps one entry; a pause is recorded as waiting, then completed", async () => {
    const h = harness();
    const model = createOfflineModel({ steps: [{ toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "x" } }] }, { text: "written" }] });
    const node = createAgentNode({ models: model, workdir: h.workdir, permissionPolicy: "ask" });
    const paused = await runStreamNode(node, { prompt: "write a.txt" }, h.context("run-1", { conversationId: "c1" })).catch((e) => e);
    expect(paused.code).toBe("user_input_required");
    expect((await node.history(h.context("x", { conversationId: "c1" }))).map((e) => e.status)).toEqual(["waiting"]);
    // Asked again while still undecided: the same stop, not a second one.
    await runStreamNode(node, { prompt: "write a.txt" }, h.context("run-1", { conversationId: "c1" })).catch((e) => e);
    const { openSessionForReading } = await import("../../src/app/agent/session-resolver.js");
    const session = (await openSessionForReading({}, h.context("x", { conversationId: "c1" })))!;
    expect((await session.store.readAfter(0, { types: ["run_stopped"] })).map((e) => e.payload)).toEqual([{ status: "waiting", toolCallCount: 1, requestId: paused.requestId }]);
    h.permissions.resolve(paused.requestId, { outcome: "approved" });
    await runStreamNode(node, { prompt: "write a.txt" }, h.context("run-1", { conversationId: "c1" }));
    await runStreamNode(node, { prompt: "write a.txt" }, h.context("run-1", { conversationId: "c1" }));
    const history = await node.history(h.context("x", { conversationId: "c1" }));
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ runId: "run-1", status: "completed", toolCallCount: 1 });
  });

  it("SES-1 failed and cancelled runs are recorded with how they stopped", async () => {
    const h = harness();
    const failing = createAgentNode({ models: createOfflineModel({ steps: [{ error: { message: "upstream broke", kind: "dropped", retryable: false } }] }), workdir: h.workdir, retryDelayMs: 0 });
    const failed = await runNode(failing, { prompt: "fail" }, h.context("run-fail", { conversationId: "c1" }));
    expect((failed.error as { code?: string }).code).toBe("model_error");
    const controller = new AbortController();
    controller.abort();
    const cancelled = await runNode(failing, { prompt: "never" }, h.context("run-cancel", { conversationId: "c1", signal: controller.signal }));
    expect((cancelled.error as { code?: string }).code).toBe("cancelled");
    expect((await failing.history(h.context("x", { conversationId: "c1" }))).map((e) => [e.runId, e.status])).toEqual([
      ["run-fail", "failed"],
      ["run-cancel", "cancelled"],
    ]);
  });

  it("SES-1 on SQLite the history is read from the durable session: while another run holds it, from a new storage, and without creating files", async () => {
    const directory = tempDirRemovedAfterAll("history-sqlite-");
    const workdir = tempDirRemovedAfterAll("history-sqlite-work-");
    const storage = createSqliteStorage({ directory });
    const context = (runId: string, conversationId = "c1", store = storage) =>
      createNodeContext({ projectId: "p", conversationId, storage: store, runId, toolPermissions: createMemoryToolPermissions(), toolCatalog: [{ id: "peek", autoApprove: true }] });
    let inside: (() => Promise<unknown>) | undefined;
    let seenInside: unknown;
    const node = createAgentNode({
      models: createOfflineModel({ steps: (request) => {
        const last = request.messages.at(-1);
        return last?.role === "user" && String(last.content).includes("peek") ? { toolCalls: [{ name: "peek", arguments: {} }] } : { text: "done" };
      } }),
      workdir,
      retryDelayMs: 0,
      extraTools: [{ name: "peek", label: "peek", description: "reads the history", parameters: { type: "object", properties: {} } as never, replay: "safe", execute: async () => ((seenInside = await inside!()), { content: [{ type: "text", text: "ok" }] }) }],
    });
    expect(await node.history(context("x"))).toEqual([]);
    expect(existsSync(storage.agentStoreDir!) ? readdirSync(storage.agentStoreDir!) : []).toEqual([]);
    await runStreamNode(node, { prompt: "first" }, context("run-1"));
    // Read while run-2 holds the session (inside its tool): no session_busy.
    inside = () => node.history(context("x"));
    await runStreamNode(node, { prompt: "peek now" }, context("run-2"));
    expect((seenInside as Array<{ runId: string; status: string }>).map((e) => [e.runId, e.status])).toEqual([
      ["run-1", "completed"],
      ["run-2", "running"],
    ]);
    await storage.close();
    // Another storage on the same directory (as another process would open it) reads the same.
    const again = createSqliteStorage({ directory });
    expect((await node.history(context("x", "c1", again))).map((e) => [e.runId, e.status, e.toolCallCount])).toEqual([
      ["run-1", "completed", 0],
      ["run-2", "completed", 1],
    ]);
    // Reading a conversation that never ran creates no session file.
    const before = readdirSync(again.agentStoreDir!).sort();
    expect(await node.history(context("x", "never-ran", again))).toEqual([]);
    expect(readdirSync(again.agentStoreDir!).sort()).toEqual(before);
    await again.close();
  });

  it("SES-1 reading the history costs the runs it returns, not the session's length", async () => {
    const h = harness();
    let returned = 0;
    const node = createAgentNode({ models: answering(), workdir: h.workdir, historyLimit: 2 });
    for (let i = 1; i <= 30; i++) await runStreamNode(node, { prompt: `q${i}` }, h.context(`run-${i}`, { conversationId: "c1" }));
    const { openSessionForReading } = await import("../../src/app/agent/session-resolver.js");
    const opened = (await openSessionForReading({}, h.context("x", { conversationId: "c1" })))!;
    const counting: SessionStore = { ...opened.store, address: opened.store.address, readAfter: async (seq, options) => {
      const events = await opened.store.readAfter(seq, options);
      returned += events.length;
      return events;
    } };
    const history = await createAgentNode(onStore({ models: answering(), historyLimit: 2, sessionStore: counting })).history(h.context("x", { conversationId: "c1" }));
    expect(history.map((e) => e.runId)).toEqual(["run-29", "run-30"]);
    // Two starts, then the end events after the older of them: two.
    expect(returned).toBe(4);
  });

  it("CAP-5 the runtime's agent.* keys stay refused to the KV capability", async () => {
    const h = harness();
    const context = h.context("run-1", { conversationId: "c1" });
    await expect(runProjectCapabilityAction("workflow-kv_kv_store", context, { action: "set", scope: "conversation", key: "agent.history.agent", value: [] })).rejects.toMatchObject({ code: "input_validation" });
  });

  it("AG-3 historyLimit must be a positive integer", () => {
    expect(() => createAgentNode({ historyLimit: 0 })).toThrow(/historyLimit must be an integer/);
    expect(() => createAgentNode({ historyLimit: 2.5 })).toThrow(/historyLimit must be an integer/);
  });
});
