import { describe, expect, it } from "@jest/globals";
import { createSqliteSessionLeaseProvider } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-lease.js";
import { createSqliteSessionStore } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-store.js";
import { resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { controlAgentSession, createAgentSessionHost } from "../../src/compose/session-host.js";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { openAgentSessionHost } from "../../src/app/session-host/create-agent-session-host.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import type { SessionBackend } from "../../src/ports/session-backend.js";
import type { AgentSessionHostStore } from "../../src/ports/session-host-store.js";
import { collect, conversation, gateTool, tempDir, waitForFile } from "./helpers.js";
import path from "node:path";
import { writeFileSync } from "node:fs";

const toolCatalog = [{ id: "slow_step", autoApprove: true }];

describe("resident session host", () => {
  it("HOST-1 submit runs a task; the host keeps lease, tools and model between turns", async () => {
    const dir = tempDir();
    const conv = conversation("basic");
    const model = createOfflineModel({ steps: [{ text: "First answer." }, { text: "Second answer." }] });
    let toolBuilds = 0;
    const host = await createAgentSessionHost(conv, {
      projectId: "p1", agentStoreDir: dir, models: model, workdir: dir, toolCatalog,
      createTools: () => { toolBuilds++; return [gateTool(dir)]; },
    });
    const out = collect();
    host.subscribe(out.listener);
    const first = await controlAgentSession(conv, { type: "submit", prompt: "hello" });
    expect(first).toMatchObject({ type: "submit", created: true, targetId: 0 });
    const done = await host.waitForTask((first as { taskId: string }).taskId);
    expect(done.status).toBe("completed");
    // Between turns the lease is still held: nobody else may execute the session.
    const leases = createSqliteSessionLeaseProvider({ agentStoreDir: dir });
    expect(await leases.acquire({ projectId: "p1", conversationId: conv, sessionKey: "agent" }, { ownerId: "other" })).toBeNull();
    const second = (await host.control({ type: "submit", prompt: "again" })) as { taskId: string };
    expect((await host.waitForTask(second.taskId)).status).toBe("completed");
    expect(toolBuilds).toBe(1);
    expect(model.calls).toHaveLength(2);
    // The second turn sees the first one's history.
    expect(model.calls[1]!.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    const snapshot = await host.snapshot();
    expect(snapshot.metadata.kind).toBe("agent-session");
    const content = snapshot.content as { turns: Array<{ usage: { total: number }; status: string }>; contexts: Array<{ outputs: Array<{ display: unknown }> }> };
    expect(content.turns.map((turn) => turn.status)).toEqual(["completed", "completed"]);
    expect(content.turns.every((turn) => turn.usage.total > 0)).toBe(true);
    expect(content.contexts[0]!.outputs[0]!.display).toEqual({ type: "ring", placement: "composer-right" });
    // Streamed items: one agent-session item (the host snapshot), never body text.
    const items = out.items();
    expect(items.filter((item) => item.metadata.kind === "agent-session")).toHaveLength(1);
    // OUT-8: each turn carries its items, in the order the host streamed them.
    const turnItems = (content.turns as unknown as Array<{ items: typeof items }>).map((turn) => turn.items);
    expect(turnItems.map((list) => list.map((item) => item.content))).toEqual([["First answer."], ["Second answer."]]);
    expect(turnItems.flat()).toEqual(items.filter((item) => item.metadata.kind !== "agent-session" && item.display?.type !== "ring"));
    await host.close();
    const after = await leases.acquire({ projectId: "p1", conversationId: conv, sessionKey: "agent" }, { ownerId: "other" });
    expect(after).not.toBeNull();
    await after!.release();
  });
});

const toolStep = (step: string) => ({ text: `Working on ${step}.`, toolCalls: [{ name: "slow_step", arguments: { step } }] });

describe("lifecycle", () => {
  it("HOST-2 close() waits for the running task, the queued one and background work, then releases", async () => {
    const dir = tempDir();
    const conv = conversation("close");
    const gate = gateTool(dir);
    const model = createOfflineModel({ steps: [toolStep("a"), { text: "A done." }, { text: "B done." }] });
    const host = await createAgentSessionHost(conv, { projectId: "p1", agentStoreDir: dir, models: model, workdir: dir, toolCatalog, createTools: () => [gate] });
    const a = (await host.control({ type: "submit", prompt: "task a" })) as { taskId: string };
    const b = (await host.control({ type: "submit", prompt: "task b" })) as { taskId: string };
    let backgroundDone = false;
    void host.runInBackground(async () => {
      await waitForFile(path.join(dir, "slow_step.release"));
      await new Promise((resolve) => setTimeout(resolve, 50));
      backgroundDone = true;
    });
    await waitForFile(path.join(dir, "slow_step.started"));
    let closed = false;
    const closing = host.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(closed).toBe(false);
    await expect(host.control({ type: "submit", prompt: "late" })).rejects.toMatchObject({ code: "unavailable" });
    writeFileSync(path.join(dir, "slow_step.release"), "");
    await closing;
    expect(backgroundDone).toBe(true);
    expect(gate.finished).toBe(1);
    expect(host.status()).toBe("closed");
    const store = (await import("../../src/adapters/driven/sqlite/session-host/sqlite-session-host-store.js"));
    const record = store.openSqliteSessionHostStore({ path: store.sessionHostDatabasePath(dir, conv) });
    const tasks = await record.listTasks();
    await record.close();
    expect(tasks.map((task) => [task.taskId, task.status])).toEqual([[a.taskId, "completed"], [b.taskId, "completed"]]);
    const lease = await createSqliteSessionLeaseProvider({ agentStoreDir: dir }).acquire({ projectId: "p1", conversationId: conv, sessionKey: "agent" }, { ownerId: "next" });
    expect(lease).not.toBeNull();
    await lease!.release();
  });

  it("HOST-4 a second host for the conversation is refused; a reject-mode submit to a busy session changes nothing", async () => {
    const dir = tempDir();
    const conv = conversation("busy");
    const gate = gateTool(dir);
    const model = createOfflineModel({ steps: [toolStep("a"), { text: "A done." }] });
    const host = await createAgentSessionHost(conv, { projectId: "p1", agentStoreDir: dir, models: model, workdir: dir, toolCatalog, createTools: () => [gate] });
    await expect(createAgentSessionHost(conv, { projectId: "p1", agentStoreDir: dir, models: model })).rejects.toMatchObject({ code: "session_busy" });
    const a = (await host.control({ type: "submit", prompt: "task a" })) as { taskId: string };
    await waitForFile(path.join(dir, "slow_step.started"));
    const refused = await controlAgentSession(conv, { type: "submit", prompt: "interrupting", mode: "reject" }).catch((error: unknown) => error);
    expect(isSteamharnessError(refused, "session_busy")).toBe(true);
    writeFileSync(path.join(dir, "slow_step.release"), "");
    expect((await host.waitForTask(a.taskId)).status).toBe("completed");
    const tasks = await host.tasks();
    expect(tasks.map((task) => task.status)).toEqual(["completed"]);
    expect(gate.runs).toBe(1);
    // Nothing of the rejected input reached the session log.
    const store = createSqliteSessionStore({ path: resolveSessionDatabasePath({ agentStoreDir: dir, conversationId: conv, sessionKey: "agent" }), address: { projectId: "p1", conversationId: conv, sessionKey: "agent" } });
    const prompts = (await store.readAfter(0, { types: ["user_message"] })).map((event) => JSON.stringify(event.payload));
    await store.close();
    expect(prompts.some((text) => text.includes("interrupting"))).toBe(false);
    // Once idle, a reject-mode submit is accepted.
    const c = (await host.control({ type: "submit", prompt: "now", mode: "reject" })) as { taskId: string };
    expect((await host.waitForTask(c.taskId)).status).toBe("completed");
    await host.close();
  });

  it("HOST-5 cancel persists the intent and stops the worker; a resumed host never revives the task", async () => {
    const dir = tempDir();
    const conv = conversation("cancel");
    const gate = gateTool(dir);
    const model = createOfflineModel({ steps: [toolStep("a"), { text: "A done." }] });
    const options = { projectId: "p1", agentStoreDir: dir, models: model, workdir: dir, toolCatalog, createTools: () => [gate] };
    const host = await createAgentSessionHost(conv, options);
    const a = (await host.control({ type: "submit", prompt: "task a" })) as { taskId: string };
    const b = (await host.control({ type: "submit", prompt: "task b" })) as { taskId: string };
    await waitForFile(path.join(dir, "slow_step.started"));
    const result = await controlAgentSession(conv, { type: "cancel" });
    expect(result).toEqual({ type: "cancel", cancelled: [a.taskId, b.taskId] });
    expect((await host.waitForTask(a.taskId)).status).toBe("cancelled");
    expect(gate.finished).toBe(0);
    await host.close();
    const calls = model.calls.length;
    writeFileSync(path.join(dir, "slow_step.release"), "");
    const again = await createAgentSessionHost(conv, { ...options, resume: true });
    await again.idle();
    expect((await again.tasks()).map((task) => task.status)).toEqual(["cancelled", "cancelled"]);
    expect(model.calls.length).toBe(calls);
    expect(gate.runs).toBe(1);
    await again.close();
  });

  it("HOST-5 a persisted cancel intent is never retried, even when the task was left running", async () => {
    const dir = tempDir();
    const conv = conversation("intent");
    const model = createOfflineModel({ steps: [{ text: "should not run" }] });
    const { openSqliteSessionHostStore, sessionHostDatabasePath } = await import("../../src/adapters/driven/sqlite/session-host/sqlite-session-host-store.js");
    const record = openSqliteSessionHostStore({ path: sessionHostDatabasePath(dir, conv) });
    await record.insertTask({ taskId: "t1", runId: "run-t1", targetId: 0, prompt: "x", input: {}, status: "running", detail: null });
    // The process died after persisting the intent and before stopping the worker.
    expect(await record.requestCancel()).toEqual(["t1"]);
    expect(await record.updateTask("t1", { status: "running" })).toBe(false);
    await record.close();
    const host = await createAgentSessionHost(conv, { projectId: "p1", agentStoreDir: dir, models: model, resume: true });
    await host.idle();
    expect((await host.tasks()).map((task) => task.status)).toEqual(["cancelled"]);
    expect(model.calls).toHaveLength(0);
    await host.close();
  });

  it("HOST-5 UI-1 a submit to an idle host starts its task in one write (inserted running); a cancel that lands between that write and the run still wins", async () => {
    const conv = conversation("start-at-once");
    const sessions = createSqliteSessionBackend({ agentStoreDir: tempDir() });
    // The host record's task writes, in order; while `gate` is set, the insert of a task written as running resolves only once it opens.
    const writes: string[] = [];
    let gate: { written: () => void; open: Promise<void>; cancelled: () => void } | null = null;
    const holding: SessionBackend = {
      ...sessions,
      openHostStore: async (conversationId, open) => {
        const store = await sessions.openHostStore(conversationId, open);
        if (!store) return null;
        return new Proxy(store, {
          get(target, name) {
            const value = Reflect.get(target, name) as unknown;
            if (typeof value !== "function") return value;
            if (name === "insertTask") {
              return async (task: Parameters<AgentSessionHostStore["insertTask"]>[0]) => {
                const result = await target.insertTask(task);
                writes.push(`insert ${task.status}`);
                if (task.status === "running" && gate) {
                  gate.written();
                  await gate.open;
                }
                return result;
              };
            }
            if (name === "requestCancel") return async (...args: Parameters<AgentSessionHostStore["requestCancel"]>) => {
              const ids = await target.requestCancel(...args);
              gate?.cancelled();
              return ids;
            };
            if (name === "updateTask") return async (...args: Parameters<AgentSessionHostStore["updateTask"]>) => (writes.push(`update ${args[1].status}`), target.updateTask(...args));
            return (value as (...args: unknown[]) => unknown).bind(target);
          },
        });
      },
    };
    const storage = new MemoryStorage();
    const model = createOfflineModel({ steps: [{ text: "Answered." }, { text: "should not run" }] });
    const host = await openAgentSessionHost(conv, { projectId: "p1", sessions: holding, contextFor: (runId, signal) => createNodeContext({ projectId: "p1", conversationId: conv, storage, runId, signal }), models: model });
    await host.idle();
    // Idle: the task is written as running and runs — its one write before the model request, no move to running.
    const first = (await host.control({ type: "submit", prompt: "first", mode: "queue" })) as { taskId: string };
    expect((await host.waitForTask(first.taskId)).status).toBe("completed");
    expect(writes).toEqual(["insert running", "update completed"]);
    expect(model.calls).toHaveLength(1);
    await host.idle();

    // The cancel lands after the task is written and before its run starts: the run never starts.
    writes.length = 0;
    let written!: () => void;
    let open!: () => void;
    let cancelled!: () => void;
    const inserted = new Promise<void>((resolve) => (written = resolve));
    const intent = new Promise<void>((resolve) => (cancelled = resolve));
    gate = { written, open: new Promise<void>((resolve) => (open = resolve)), cancelled };
    const submitted = host.control({ type: "submit", prompt: "second", mode: "queue" }) as Promise<{ taskId: string }>;
    await inserted;
    const cancelling = host.control({ type: "cancel" });
    // The cancel intent is persisted on the written task before the submit's write has resolved.
    await intent;
    open();
    const second = await submitted;
    expect(await cancelling).toEqual({ type: "cancel", cancelled: [second.taskId] });
    expect((await host.waitForTask(second.taskId)).status).toBe("cancelled");
    expect(writes[0]).toBe("insert running");
    expect(model.calls).toHaveLength(1);
    await host.close();
    // Nothing of the cancelled run was logged.
    const log = (await sessions.openUnleased({ address: { projectId: "p1", conversationId: conv, sessionKey: "agent" }, create: false }))!;
    expect((await log.readAfter(0)).filter((event) => event.runId === `run-${second.taskId}`)).toEqual([]);
    await log.close();
    await sessions.close();
    await storage.close();
  });

  it("SES-8 a task paused by a question waits; continue with the answer finishes it", async () => {
    const dir = tempDir();
    const conv = conversation("ask");
    const model = createOfflineModel({ steps: [{ text: "One question.", toolCalls: [{ id: "q1", name: "ask_user", arguments: { question: "Colour?" } }] }, { text: "Blue it is." }] });
    const host = await createAgentSessionHost(conv, { projectId: "p1", agentStoreDir: dir, models: model, workdir: dir });
    const a = (await host.control({ type: "submit", prompt: "paint" })) as { taskId: string };
    const waiting = await host.waitForTask(a.taskId);
    expect(waiting.status).toBe("waiting");
    expect(waiting.detail).toMatchObject({ request: { kind: "question" } });
    await expect(host.control({ type: "submit", prompt: "other", mode: "reject" })).rejects.toMatchObject({ code: "session_busy" });
    await host.control({ type: "continue", answer: "blue" });
    expect((await host.waitForTask(a.taskId)).status).toBe("completed");
    expect(model.calls[1]!.messages.some((message) => message.role === "toolResult" && JSON.stringify(message.content).includes("blue"))).toBe(true);
    await host.close();
  });

  it("HOST-1 a command with no host answering stays in the durable inbox; the next resumed host runs it", async () => {
    const dir = tempDir();
    const conv = conversation("stored");
    const model = createOfflineModel({ steps: [{ text: "Ran from the inbox." }] });
    await expect(controlAgentSession(conv, { type: "submit", prompt: "x" })).rejects.toMatchObject({ code: "not_found" });
    const stored = await controlAgentSession(conv, { type: "submit", prompt: "from the inbox", taskId: "inbox-1" }, { agentStoreDir: dir, timeoutMs: 100 });
    expect(stored).toEqual({ type: "stored", command: "submit", seq: 1 });
    const host = await createAgentSessionHost(conv, { projectId: "p1", agentStoreDir: dir, models: model, workdir: dir, resume: true });
    await host.idle();
    const tasks = await host.tasks();
    expect(tasks.map((task) => [task.taskId, task.status])).toEqual([["inbox-1", "completed"]]);
    expect(model.calls).toHaveLength(1);
    await host.close();
  });

  it("HOST-1 the inbox runs commands that wait for the lane (fork) and answers errors with their code", async () => {
    const dir = tempDir();
    const conv = conversation("inbox-fork");
    const model = createOfflineModel({ steps: [{ text: "Hello." }] });
    const host = await createAgentSessionHost(conv, { projectId: "p1", agentStoreDir: dir, models: model, workdir: dir, inboxPollMs: 10 });
    const { openSqliteSessionHostStore, sessionHostDatabasePath } = await import("../../src/adapters/driven/sqlite/session-host/sqlite-session-host-store.js");
    const record = openSqliteSessionHostStore({ path: sessionHostDatabasePath(dir, conv) });
    const fork = await record.enqueueCommand({ type: "fork" });
    const bad = await record.enqueueCommand({ type: "select", targetId: 7 });
    const malformed = await record.enqueueCommand({ type: "submit" });
    const answer = async (seq: number) => {
      for (;;) {
        const outcome = await record.commandOutcome(seq);
        if (outcome && outcome.status !== "pending") return outcome;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    expect(await answer(fork)).toMatchObject({ status: "done", result: { type: "fork", targetId: 1, sourceTargetId: 0 } });
    expect(await answer(bad)).toMatchObject({ status: "failed", error: { code: "not_found" } });
    expect(await answer(malformed)).toMatchObject({ status: "failed", error: { code: "input_validation" } });
    await record.close();
    await host.close();
  });
});
