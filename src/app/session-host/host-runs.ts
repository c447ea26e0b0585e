import { SteamharnessError, UserInputRequiredError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import type { OutputItemStreamChunk } from "../../domain/output-items.js";
import type { AgentSessionTaskRecord } from "../../domain/session-host/host-state.js";
import type { HostRuntime } from "./host-runtime.js";

/** A node run handed to a resident host (EXT-1): the run id is the node's, not a new task's. */
export interface HostRunRequest {
  runId: string;
  prompt: string;
  /** Per-run input (effort, model, workdir, systemPrompt, askResume), as JSON. */
  input: JsonObject;
  /** Aborting cancels the run's task (a persisted cancel, HOST-5). */
  signal: AbortSignal;
}

/** The task of a run id: every task a node queued for it carries the run id in its task id. */
const taskIdOf = (runId: string, n: number): string => (n === 0 ? `node:${runId}` : `node:${runId}:${n}`);

/**
 * Queues a node run on the host's serial lane and streams that run's own chunks (the agent's
 * items, its `agent-session` item included) until its task settles. The same run id continues a
 * waiting task (a resumed pause, SES-8) and replays a finished one from the session log (SES-3);
 * a task with a persisted cancel is never run again (HOST-5). Throws like a plain run: the pause
 * (`user_input_required`), `cancelled`, or the failure (after its `agent-error` chunk).
 *
 * @example
 * for await (const chunk of runOnHost(runtime, waitForTask, { runId, prompt, input: {}, signal })) render(chunk);
 */
export async function* runOnHost(
  runtime: HostRuntime,
  waitForTask: (taskId: string) => Promise<AgentSessionTaskRecord>,
  request: HostRunRequest,
): AsyncGenerator<OutputItemStreamChunk, void, undefined> {
  const { store } = runtime.parts;
  if (runtime.state !== "open") throw new SteamharnessError("unavailable", `the session host is ${runtime.state}`);
  const chunks: OutputItemStreamChunk[] = [];
  let notify: (() => void) | null = null;
  if (runtime.runListeners.has(request.runId)) throw new SteamharnessError("session_busy", `run ${request.runId} is already streaming from this host`);
  runtime.runListeners.set(request.runId, (chunk) => {
    chunks.push(chunk);
    notify?.();
  });
  try {
    const earlier = await store.findTasks({ runId: request.runId });
    const last = earlier.at(-1);
    let taskId: string;
    if (last?.cancelRequested || last?.status === "cancelled") throw new SteamharnessError("cancelled", `run ${request.runId} was cancelled`);
    // A run id re-sent after a restart continues the task an earlier host (another process) left
    // unfinished; this host holds the session's lease, so nobody else is running it (EXT-7).
    if (last && (last.status === "queued" || last.status === "running" || last.status === "waiting") && !runtime.isOwn(last)) runtime.adopt(last.taskId);
    // The lane holds every queued task behind a waiting one: a run that would queue behind another
    // run's pause could never start, so it is refused instead of waiting forever.
    const blocker = (await runtime.activeTasks()).find((task) => task.status === "waiting" && !task.cancelRequested && task.runId !== request.runId);
    if (blocker && !(last && last.status === "running")) {
      throw new SteamharnessError("session_busy", `run ${blocker.runId} of this session waits for input: resume it (re-run its run id) or cancel it before run ${request.runId}`, {
        data: { waitingRunId: blocker.runId, taskId: blocker.taskId },
      });
    }
    if (last && (last.status === "queued" || last.status === "running")) taskId = last.taskId;
    else if (last?.status === "waiting") {
      taskId = last.taskId;
      await runtime.requeue(taskId, request.input);
    } else {
      taskId = taskIdOf(request.runId, earlier.length);
      await runtime.addTask({ taskId, runId: request.runId, targetId: runtime.parts.activeTargetId, prompt: request.prompt, input: request.input, detail: null });
    }
    const onAbort = () => {
      void (async () => {
        const ids = await store.requestCancel([taskId]);
        if (runtime.current && ids.includes(runtime.current.task.taskId)) runtime.current.controller.abort(request.signal.reason);
        await store.clearCancelled();
        runtime.changed();
      })().catch(() => undefined);
    };
    request.signal.addEventListener("abort", onAbort, { once: true });
    let settled: { task: AgentSessionTaskRecord } | { error: unknown } | null = null;
    void waitForTask(taskId).then(
      (task) => (settled = { task }),
      (error: unknown) => (settled = { error }),
    ).finally(() => notify?.());
    runtime.kick();
    runtime.changed();
    try {
      for (;;) {
        while (chunks.length > 0) yield chunks.shift()!;
        if (settled) break;
        await new Promise<void>((resolve) => (notify = resolve));
        notify = null;
      }
      while (chunks.length > 0) yield chunks.shift()!;
    } finally {
      request.signal.removeEventListener("abort", onAbort);
    }
    const outcome = settled as { task: AgentSessionTaskRecord } | { error: unknown } | null;
    if (!outcome || "error" in outcome) throw outcome?.error ?? new SteamharnessError("internal", "the host run ended without a result");
    throwForTask(outcome.task);
  } finally {
    runtime.runListeners.delete(request.runId);
  }
}

/** Turns a settled task into what a plain run would have thrown (nothing for `completed`). */
function throwForTask(task: AgentSessionTaskRecord): void {
  const detail = task.detail ?? {};
  switch (task.status) {
    case "completed":
      return;
    case "waiting": {
      const request = (detail.request ?? {}) as Record<string, unknown>;
      throw new UserInputRequiredError(String(detail.requestId ?? ""), request, `the run waits for input (${String(request.kind ?? "request")})`);
    }
    case "cancelled":
      throw new SteamharnessError("cancelled", "the agent run was cancelled");
    case "failed":
      throw new SteamharnessError((detail.code as SteamharnessError["code"] | undefined) ?? "internal", String(detail.message ?? "the agent run failed"));
    default:
      // Still queued or running: the host was suspended or closed under the run.
      throw new SteamharnessError("unavailable", "the session host was released before the run ended");
  }
}
