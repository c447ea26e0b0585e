import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { createSqliteSessionStore } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-store.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import type { SessionEvent, SessionStore } from "../../src/ports/session-store.js";
import type { Storage } from "../../src/ports/storage.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { runNode } from "./helpers.js";

const root = mkdtempSync(path.join(tmpdir(), "agent-commit-points-"));
const workdir = mkdtempSync(path.join(tmpdir(), "agent-commit-points-work-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(workdir, { recursive: true, force: true });
});
let cases = 0;
const address = { projectId: "p", conversationId: "c", sessionKey: "agent" };

/** A SQLite storage and a way to read its conversation's session from a separate connection. */
function setUp() {
  const storage = createSqliteStorage({ directory: path.join(root, `case-${cases++}`) });
  const file = resolveSessionDatabasePath({ agentStoreDir: storage.agentStoreDir, conversationId: "c", sessionKey: "agent" });
  const committed = async (runId: string): Promise<SessionEvent[]> => {
    const reader = createSqliteSessionStore({ path: file, address });
    try {
      return await reader.readRun(runId);
    } finally {
      await reader.close();
    }
  };
  const context = (runId: string, extra: { signal?: AbortSignal; storage?: Storage } = {}) =>
    createNodeContext({ projectId: "p", conversationId: "c", storage: extra.storage ?? storage, runId, toolPermissions: createMemoryToolPermissions(), toolCatalog: [{ id: "once", autoApprove: true }, { id: "again", autoApprove: true }], ...(extra.signal ? { signal: extra.signal } : {}) });
  return { storage, file, committed, context };
}

describe("what a run commits, and when", () => {
  it("SES-4 a tool that may not run twice is committed as started before it runs; a safe tool's start and result are committed with the run's next step", async () => {
    const { storage, committed, context } = setUp();
    const seenWhileRunning: Record<string, string[]> = {};
    const probe = (name: string, replay: "safe" | "never"): AgentTool => ({
      name,
      label: name,
      description: `${name} tool`,
      parameters: Type.Object({}),
      replay,
      async execute(toolCallId) {
        seenWhileRunning[name] = (await committed("run-1")).filter((event) => event.eventId.includes(toolCallId)).map((event) => event.type);
        return { content: [{ type: "text", text: `${name} done` }] };
      },
    });
    const model = createOfflineModel({ steps: [{ toolCalls: [{ id: "t1", name: "once", arguments: {} }, { id: "t2", name: "again", arguments: {} }] }, { text: "Both ran." }] });
    // What is committed when the model is asked the second time (both results are in its request).
    let seenAtSecondRequest: string[] = [];
    const probing = { ...model, async *stream(request: ModelRequest, signal: AbortSignal) {
      if (request.messages.some((message) => message.role === "toolResult")) seenAtSecondRequest = (await committed("run-1")).map((event) => event.eventId.replace("run-1/", ""));
      yield* model.stream(request, signal);
    } };
    const node = createAgentNode({ models: probing, workdir, retryDelayMs: 0, extraTools: [probe("once", "never"), probe("again", "safe")] });
    const result = await runNode(node, { prompt: "run both" }, context("run-1"));
    expect(result.error).toBeUndefined();
    expect(seenWhileRunning.once).toEqual(["tool_intent", "tool_started"]);
    expect(seenWhileRunning.again).toEqual(["tool_intent"]);
    // The safe tool's start and result wait for the next step; the other tool's result is committed at once.
    expect(seenAtSecondRequest).toContain("tool/t1/result");
    expect(seenAtSecondRequest.filter((id) => id.startsWith("tool/t2/"))).toEqual(["tool/t2/intent"]);
    const events = await committed("run-1");
    const seqOf = (type: string, call: string) => events.find((event) => event.type === type && event.eventId.includes(call))!.seq;
    expect(seqOf("tool_started", "t2")).toBe(seqOf("tool_result", "t2") - 1);
    expect(seqOf("tool_started", "t1")).toBeLessThan(seqOf("tool_result", "t1"));
    await storage.close();
  });

  it("SES-3 a run's start and prompt are committed with its first step; a run cancelled before any step still keeps its prompt", async () => {
    const { storage, committed, context } = setUp();
    let seenAtFirstRequest: string[] | null = null;
    const model = createOfflineModel({
      steps: () => ({ text: "Answer." }) as OfflineStep,
    });
    const probing = { ...model, async *stream(request: ModelRequest, signal: AbortSignal) {
      seenAtFirstRequest ??= (await committed("run-1")).map((event) => event.type);
      yield* model.stream(request, signal);
    } };
    const node = createAgentNode({ models: probing, workdir, retryDelayMs: 0 });
    expect((await runNode(node, { prompt: "hello" }, context("run-1"))).error).toBeUndefined();
    expect(seenAtFirstRequest).toEqual([]);
    expect((await committed("run-1")).map((event) => event.type)).toEqual(["run_started", "user_message", "assistant_message", "usage", "run_finished"]);

    const controller = new AbortController();
    const stalling = { ...model, async *stream(request: ModelRequest, signal: AbortSignal) {
      controller.abort();
      yield* model.stream(request, signal);
    } };
    const cancelled = await runNode(createAgentNode({ models: stalling, workdir, retryDelayMs: 0 }), { prompt: "never answered" }, context("run-2", { signal: controller.signal }));
    expect((cancelled.error as { code?: string }).code).toBe("cancelled");
    const kept = await committed("run-2");
    expect(kept.map((event) => event.type)).toEqual(["run_started", "user_message", "run_stopped"]);
    expect(kept[1]!.payload).toEqual({ message: { role: "user", content: "never answered" } });
    expect(kept[2]!.payload).toEqual({ status: "cancelled", toolCallCount: 0 });
    await storage.close();
  });

  it("SES-1 an agent reads only the session events appended since its last run, sees another agent's turns, and reads a removed session afresh", async () => {
    const { storage, context } = setUp();
    // The storage the agent sees: the same sessions, with every read counted.
    const rowsRead: number[] = [];
    const counting = (store: SessionStore): SessionStore => ({
      ...store,
      address: store.address,
      readAfter: async (afterSeq, options) => {
        const events = await store.readAfter(afterSeq, options);
        if (options?.types) rowsRead.push(events.length);
        return events;
      },
    });
    const watched: Storage = { ...storage, sessions: { ...storage.sessions!, open: async (request) => counting(await storage.sessions!.open(request)) } };
    const answer = (request: ModelRequest): OfflineStep => ({ text: `Seen ${request.messages.length} messages.` });
    const mine = createOfflineModel({ steps: answer });
    const agent = createAgentNode({ models: mine, workdir, retryDelayMs: 0 });
    const other = createAgentNode({ models: createOfflineModel({ steps: answer }), workdir, retryDelayMs: 0 });
    for (let turn = 1; turn <= 3; turn++) expect((await runNode(agent, { prompt: `mine ${turn}` }, context(`mine-${turn}`, { storage: watched }))).error).toBeUndefined();
    // The first run reads the empty session; the next ones read nothing: the agent remembers
    // what its own runs appended, and nothing else was appended since.
    expect(rowsRead).toEqual([0]);
    expect(mine.calls.at(-1)!.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect((await runNode(other, { prompt: "theirs" }, context("theirs"))).error).toBeUndefined();
    expect((await runNode(agent, { prompt: "mine 4" }, context("mine-4", { storage: watched }))).error).toBeUndefined();
    // Read: only the other agent's turn; the context has all eight earlier messages.
    expect(rowsRead).toEqual([0, 2]);
    const fourth = mine.calls.at(-1)!.messages;
    expect(fourth.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant", "user"]);
    expect(fourth[6]).toEqual({ role: "user", content: "theirs" });

    rmSync(storage.agentStoreDir!, { recursive: true, force: true });
    expect((await runNode(agent, { prompt: "after the reset" }, context("mine-5", { storage: watched }))).error).toBeUndefined();
    expect(mine.calls.at(-1)!.messages).toEqual([{ role: "user", content: "after the reset" }]);
    await storage.close();
  });
});
