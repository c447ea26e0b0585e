/**
 * The `tasks/*` requests of a workflow MCP server (MCP-13, MCP-14), answered from the shared
 * task store, so any host serving the project answers for any task: `tasks/get` (the dead-owner
 * and TTL rules applied), `tasks/result` (waits for a final status; for a task that needs input,
 * asks the client by form elicitation tied to the task and runs it again with the answer on the
 * same run id), `tasks/cancel` (the owner ends the worker) and `tasks/list`.
 */
import { CancelTaskRequestSchema, GetTaskPayloadRequestSchema, GetTaskRequestSchema, ListTasksRequestSchema } from "@modelcontextprotocol/core";
import { ProtocolError, ProtocolErrorCode, RELATED_TASK_META_KEY, type AuthInfo, type Server, type ServerContext, type Task } from "@modelcontextprotocol/server";
import { isSteamharnessError } from "../../../../domain/errors.js";
import type { StructureEntrypoint } from "../../../../domain/workflow/workflow-definition.js";
import type { McpTaskRecord } from "../../../../ports/mcp-task-store.js";
import type { PausedRun } from "../../../../domain/workflow/paused-run.js";
import { createElicitationHandlers } from "../workflow-elicitation.js";
import { errorResult, isFinal, type TaskPause, type TaskRuns } from "./task-runs.js";
import { tenantOfAuth } from "../transport/http-tenant.js";
import { acquireRunSlot } from "../transport/http-admission.js";

/** How often `tasks/result` looks at a task another host runs. */
const RESULT_POLL_MS = 200;
const LIST_PAGE = 50;

/**
 * The MCP `Task` of a row.
 *
 * @example
 * const task = taskOf(row); // { taskId, status, ttl, createdAt, lastUpdatedAt, pollInterval }
 */
export function taskOf(row: McpTaskRecord): Task {
  return {
    taskId: row.taskId,
    status: row.status,
    ttl: row.ttlMs,
    createdAt: new Date(row.createdAt).toISOString(),
    lastUpdatedAt: new Date(row.updatedAt).toISOString(),
    pollInterval: row.pollIntervalMs,
    ...(row.statusMessage !== null ? { statusMessage: row.statusMessage } : {}),
  };
}

const notFound = (taskId: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId} (never created in this project, or pruned after its TTL)`);
const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
});

/** A connection's status notifications: {@link createTaskStatusNotifier}. */
export interface TaskStatusNotifier {
  /** From now on, this connection hears of the task's changes made by this host (once per task). */
  watch(taskId: string): void;
  /** Ends every watch (the connection closed). */
  close(): void;
}

/**
 * `notifications/tasks/status` for one connection (MCP-13): a task this connection started or
 * answered is reported to it each time this host changes it — `input_required` when its run
 * waits, `working` when an answer resumes it, then `completed`, `failed` or `cancelled` — so a
 * client need not poll. Changes made on other hosts are not reported here (the client's
 * `tasks/get` still sees them); a notification that cannot be sent is dropped.
 *
 * @example
 * const notifier = createTaskStatusNotifier(server, runs);
 * notifier.watch(record.taskId);
 */
export function createTaskStatusNotifier(server: Server, runs: TaskRuns): TaskStatusNotifier {
  const watches = new Map<string, () => void>();
  return {
    watch(taskId) {
      if (watches.has(taskId)) return;
      const stop = runs.watch(taskId, (row) => {
        if (isFinal(row.status)) watches.delete(taskId);
        server.notification({ method: "notifications/tasks/status", params: taskOf(row) }).catch(() => undefined);
      });
      watches.set(taskId, stop);
    },
    close() {
      for (const stop of watches.values()) stop();
      watches.clear();
    },
  };
}

/**
 * Adds the `tasks/*` handlers to a workflow server; `entrypointOf` finds a task's entrypoint in
 * the published catalog; `notifier` (when given) is told of the tasks this connection answers.
 *
 * @example
 * addTaskHandlers(server, runs, async (id) => (await catalog).structure.entrypoints.find((e) => e.id === id));
 */
export function addTaskHandlers(server: Server, runs: TaskRuns, entrypointOf: (id: string) => Promise<StructureEntrypoint | undefined>, notifier?: TaskStatusNotifier): void {
  // MCP-13: a task is its creator's tenant's; to any other it is an unknown task (single-tenant hosts: one, or none).
  const tenantOf = (ctx: ServerContext) => tenantOfAuth(ctx.http?.authInfo) ?? null;
  // The tasks/* methods are the tasks extension's, not spec methods: registered with their schemas.
  server.setRequestHandler("tasks/get", { params: GetTaskRequestSchema.shape.params }, async (params, ctx) => {
    const row = await runs.read(params.taskId, tenantOf(ctx));
    if (!row) throw notFound(params.taskId);
    return taskOf(row);
  });

  server.setRequestHandler("tasks/list", { params: ListTasksRequestSchema.shape.params }, async (params, ctx) => {
    const page = await runs.list(params?.cursor, LIST_PAGE, tenantOf(ctx));
    return { tasks: page.tasks.map(taskOf), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });

  server.setRequestHandler("tasks/cancel", { params: CancelTaskRequestSchema.shape.params }, async (params, ctx) => {
    const { taskId } = params;
    const row = await runs.read(taskId, tenantOf(ctx));
    if (!row) throw notFound(taskId);
    if (!(await runs.cancel(taskId))) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task ${taskId}: it is already ${(await runs.read(taskId))?.status ?? "gone"}`);
    return taskOf((await runs.read(taskId)) ?? row);
  });

  server.setRequestHandler("tasks/result", { params: GetTaskPayloadRequestSchema.shape.params }, async (params, ctx) => {
    const { taskId } = params;
    const signal = ctx.mcpReq.signal;
    for (;;) {
      // -32001: the request-timeout code the v1 SDK named (ErrorCode.RequestTimeout).
      if (signal.aborted) throw new ProtocolError(-32001, "tasks/result was cancelled");
      const row = await runs.read(taskId, tenantOf(ctx));
      if (!row) throw notFound(taskId);
      if (isFinal(row.status)) {
        const result = (row.result ?? errorResult(row.statusMessage ?? `the task was ${row.status}`)) as Record<string, unknown>;
        return { ...result, _meta: { ...(result._meta as object | undefined), [RELATED_TASK_META_KEY]: { taskId } } } as never;
      }
      if (row.status === "input_required") {
        await answerPaused(server, runs, row, entrypointOf, { signal, requestId: ctx.mcpReq.id, ...(ctx.http?.authInfo ? { authInfo: ctx.http.authInfo } : {}) }, notifier);
        continue;
      }
      await sleep(RESULT_POLL_MS, signal);
    }
  });
}

/** Asks the client the paused task's form (tied to the task) and runs the task again with the answer. */
async function answerPaused(
  server: Server,
  runs: TaskRuns,
  row: McpTaskRecord,
  entrypointOf: (id: string) => Promise<StructureEntrypoint | undefined>,
  extra: { signal: AbortSignal; requestId: string | number; authInfo?: AuthInfo },
  notifier?: TaskStatusNotifier,
): Promise<void> {
  const pause = row.paused as unknown as TaskPause;
  const entrypoint = await entrypointOf(row.entrypointId);
  if (!entrypoint) throw new ProtocolError(ProtocolErrorCode.InternalError, `task ${row.taskId} is a run of ${row.entrypointId}, which this host's catalog does not publish`);
  const forms = createElicitationHandlers(server, { signal: extra.signal, relatedTaskId: row.taskId, relatedRequestId: extra.requestId, ...(extra.authInfo ? { authInfo: extra.authInfo } : {}) });
  let answer: PausedRun["answers"][string];
  try {
    if (pause.form.kind === "input") {
      const response = await forms.onInput(pause.form.request);
      answer = { kind: "input", values: response.outcome === "answered" ? response.values : {}, ...(response.outcome === "answered" && response.answeredBy ? { answeredBy: response.answeredBy } : {}) };
    } else {
      const decision = await forms.onApproval(pause.form.request);
      if (decision.outcome === "pending") throw new ProtocolError(ProtocolErrorCode.InternalError, "the approval is still pending");
      answer = { kind: "approval", decision };
    }
  } catch (error) {
    if (isSteamharnessError(error, "cancelled")) {
      // Declining or cancelling the form ends the run, as it does for a call without a task.
      await runs.fail(row.taskId, error.message);
      return;
    }
    if (isSteamharnessError(error, "input_validation")) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
    if (isSteamharnessError(error, "interaction_required")) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `task ${row.taskId} needs input (${pause.pending.message}) and this client does not support form elicitation`);
    throw error;
  }
  // Another host (another tasks/result) may have claimed it first: the loop then waits for that run.
  // The answering connection hears how the run it resumed goes on.
  notifier?.watch(row.taskId);
  // TEN-5: the resumed run takes its key tenant's concurrency slot again, or the answer is refused (the task stays waiting).
  const slot = await acquireRunSlot(extra.authInfo, `The task ${row.taskId} still waits for this answer.`);
  await runs.resume(row, entrypoint, { [pause.pending.requestId]: answer }, tenantOfAuth(extra.authInfo), slot);
}
