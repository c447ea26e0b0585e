import { randomUUID } from "node:crypto";
import { SteamharnessError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import { parseAgentSessionCommand, type AgentSessionCommand } from "../../domain/session-host/commands.js";
import { measureContext, openHostContext, readTranscript, type HostContext, type HostContextFactoryOptions } from "./host-contexts.js";
import { CANCEL, type HostRuntime } from "./host-runtime.js";
import type { AgentSessionCommandResult } from "./types.js";

/** What command handlers need besides the runtime. */
export interface HostCommandDeps {
  runtime: HostRuntime;
  contextOptions: HostContextFactoryOptions;
}

const usageJson = (usage: { used: number; total: number; unit: string; source: string }): JsonObject => ({ ...usage });

function targetOf(deps: HostCommandDeps, targetId: number | undefined): HostContext {
  const id = targetId ?? deps.runtime.parts.activeTargetId;
  const context = deps.runtime.parts.contexts.get(id);
  if (!context) throw new SteamharnessError("not_found", `no context with targetId ${id}`, { field: "targetId" });
  return context;
}

async function setUsage(deps: HostCommandDeps, context: HostContext): Promise<JsonObject> {
  const usage = await measureContext(context, deps.runtime.parts.systemPrompt);
  deps.runtime.usage.set(context.record.targetId, usage);
  return usageJson(usage);
}

/** Stops work: persist the intent, stop the worker, clear the tasks (HOST-5). */
async function cancel(deps: HostCommandDeps, taskId: string | undefined): Promise<AgentSessionCommandResult> {
  const { runtime } = deps;
  const ids = await runtime.parts.store.requestCancel(taskId === undefined ? undefined : [taskId]);
  const current = runtime.current;
  if (current && ids.includes(current.task.taskId)) {
    current.controller.abort(CANCEL);
    await current.done;
  }
  await runtime.parts.store.clearCancelled();
  runtime.changed();
  return { type: "cancel", cancelled: ids };
}

/**
 * The numeric id the next context gets (contexts are numbered 0, 1, 2, … in creation order).
 *
 * @example
 * nextTargetId(deps) // 1 after the main context
 */
export function nextTargetId(deps: HostCommandDeps): number {
  return Math.max(-1, ...deps.runtime.parts.contexts.keys()) + 1;
}

/**
 * Opens a new context (a fork or a child) and records it durably.
 *
 * @example
 * const child = await addContext(deps, { kind: "child", sessionKey, parentTargetId: 0 });
 */
export async function addContext(deps: HostCommandDeps, record: { kind: "fork" | "child"; sessionKey: string; parentTargetId: number }): Promise<HostContext> {
  const full = { ...record, targetId: nextTargetId(deps) };
  await deps.runtime.parts.store.putContext(full);
  const context = await openHostContext(deps.contextOptions, full);
  deps.runtime.parts.contexts.set(full.targetId, context);
  return context;
}

async function reset(deps: HostCommandDeps, context: HostContext): Promise<AgentSessionCommandResult> {
  const { lastSeq } = await readTranscript(context.store);
  // A snapshot at the input boundary; the events stay, nothing overwrites the transcript (SES-7).
  await context.store.putSnapshot({ atSeq: lastSeq, state: { messages: [] } });
  const usage = await setUsage(deps, context);
  deps.runtime.changed();
  return { type: "reset", targetId: context.record.targetId, usage };
}

/**
 * SES-11: the context's agent compacts its session with the session's own model (an appended
 * `compaction` event and a snapshot at it); its compaction row and ring go to the host's
 * listeners, the ring in the snapshot is recalibrated.
 */
async function compact(deps: HostCommandDeps, context: HostContext, command: { keepLast?: number; instructions?: string }): Promise<AgentSessionCommandResult> {
  const runId = `compact-${randomUUID()}`;
  const result = await context.agent.compact(
    { runId, keepLast: command.keepLast ?? 6, ...(command.instructions ? { instructions: command.instructions } : {}) },
    deps.runtime.parts.nodeContext(runId, new AbortController().signal),
  );
  for (const chunk of result.chunks) deps.runtime.emit(chunk);
  deps.runtime.usage.set(context.record.targetId, result.usage);
  deps.runtime.changed();
  return {
    type: "compact",
    targetId: context.record.targetId,
    compacted: result.compacted,
    usage: usageJson(result.usage),
    source: result.source,
    ...(result.reason ? { reason: result.reason } : {}),
    summary: result.summary,
    folded: result.folded,
    runId,
  };
}

async function fork(deps: HostCommandDeps, targetId: number | undefined, activate: boolean): Promise<AgentSessionCommandResult> {
  const source = targetOf(deps, targetId);
  const { messages } = await readTranscript(source.store);
  const key = `${deps.runtime.parts.sessionKey}#fork-${nextTargetId(deps)}`;
  const forked = await addContext(deps, { kind: "fork", sessionKey: key, parentTargetId: source.record.targetId });
  const head = await forked.store.head();
  await forked.store.putSnapshot({ atSeq: head.lastSeq, state: { messages } as unknown as JsonObject });
  if (activate) {
    deps.runtime.parts.activeTargetId = forked.record.targetId;
    await deps.runtime.parts.store.setSetting("activeTargetId", String(forked.record.targetId));
  }
  // The fork's ring exists at once, before it has answered anything (HOST-6).
  const usage = await setUsage(deps, forked);
  deps.runtime.changed();
  return { type: "fork", targetId: forked.record.targetId, sourceTargetId: source.record.targetId, usage };
}

/**
 * Runs one command on a host (HOST-1). `submit` in `reject` mode refuses with `session_busy`
 * while any task is active, writing nothing (HOST-4); `cancel` persists the intent before it
 * stops the worker (HOST-5); `compact`, `reset` and `fork` wait for running work (SES-7); `steer`
 * queues a message the running turn takes at its next step boundary (UI-5).
 *
 * @example
 * await runHostCommand(deps, { type: "submit", prompt: "Summarise the notes", mode: "reject" });
 */
export async function runHostCommand(deps: HostCommandDeps, raw: AgentSessionCommand): Promise<AgentSessionCommandResult> {
  const command = parseAgentSessionCommand(raw);
  const { runtime } = deps;
  const { store } = runtime.parts;
  if (runtime.state !== "open") throw new SteamharnessError("unavailable", `the session host is ${runtime.state}`);
  switch (command.type) {
    case "submit": {
      const context = targetOf(deps, command.targetId);
      if (command.mode === "reject") {
        // A task id the host has is answered as it is, busy or not (a queued submit's insert does the same).
        const existing = command.taskId === undefined ? null : await store.getTask(command.taskId);
        if (existing) return { type: "submit", taskId: existing.taskId, runId: existing.runId, targetId: existing.targetId, created: false };
        const busy = runtime.current !== null || (await runtime.activeTasks()).some((task) => !task.cancelRequested);
        if (busy) throw new SteamharnessError("session_busy", `[steamharness] conversation ${runtime.parts.conversationId} is busy; the submit was rejected`, { data: { conversationId: runtime.parts.conversationId } });
      }
      const taskId = command.taskId ?? `task-${randomUUID()}`;
      const input: JsonObject = { ...(command.effort ? { effort: command.effort } : {}), ...(command.model ? { model: command.model } : {}) };
      const { task, created } = await runtime.addTask({ taskId, runId: `run-${taskId}`, targetId: context.record.targetId, prompt: command.prompt, input, detail: null });
      runtime.changed();
      return { type: "submit", taskId: task.taskId, runId: task.runId, targetId: task.targetId, created };
    }
    case "steer": {
      const context = targetOf(deps, command.targetId);
      const taskId = command.taskId ?? `task-${randomUUID()}`;
      const { task, created } = await runtime.addTask({ taskId, runId: `run-${taskId}`, targetId: context.record.targetId, prompt: command.prompt, input: { steer: true }, detail: null });
      const running = runtime.current?.task;
      runtime.changed();
      const into = task.status === "queued" && running && running.targetId === task.targetId && running.order < task.order ? running.runId : null;
      return { type: "steer", taskId: task.taskId, runId: task.runId, targetId: task.targetId, created, into };
    }
    case "cancel":
      return cancel(deps, command.taskId);
    case "compact":
      return runtime.exclusive(() => compact(deps, targetOf(deps, command.targetId), command));
    case "reset":
      return runtime.exclusive(() => reset(deps, targetOf(deps, command.targetId)));
    case "fork":
      return runtime.exclusive(() => fork(deps, command.targetId, command.activate ?? true));
    case "continue": {
      const tasks = await runtime.activeTasks();
      const task = command.taskId === undefined ? tasks.find((entry) => entry.status === "waiting") : tasks.find((entry) => entry.taskId === command.taskId);
      if (!task || task.status !== "waiting") throw new SteamharnessError("not_found", "no task is waiting for input", { field: "taskId" });
      const input: JsonObject = { ...task.input };
      if (command.answer !== undefined) input.askResume = { answer: command.answer, ...(command.requestId ? { requestId: command.requestId } : {}), ...(command.answeredBy ? { answeredBy: { ...command.answeredBy } } : {}) };
      await runtime.requeue(task.taskId, input);
      runtime.changed();
      return { type: "continue", taskId: task.taskId };
    }
    case "select": {
      targetOf(deps, command.targetId);
      runtime.parts.activeTargetId = command.targetId;
      await store.setSetting("activeTargetId", String(command.targetId));
      runtime.changed();
      return { type: "select", targetId: command.targetId };
    }
  }
}
