/**
 * MCP-20: the tasks extension of the 2026-07-28 revision (`io.modelcontextprotocol/tasks`,
 * SEP-2663) over the same durable task store as the 2025-11-25 `tasks/*` (task-handlers.ts), so
 * a task created on one host is read, answered and cancelled on any other. The wire differs from
 * 2025-11-25: the server decides which `tools/call` becomes a task (the entrypoint's `task`
 * declaration, when the request's `_meta` client capabilities name the extension) and answers a
 * flat `CreateTaskResult` (`resultType: "task"`, `ttlMs`, `pollIntervalMs`); `tasks/get` inlines
 * the result (`completed`), the error (`failed`) or the open questions (`input_required`,
 * `inputRequests`); `tasks/update` delivers the answers; `tasks/cancel` and `tasks/update` answer
 * an empty ack; `tasks/result` and `tasks/list` are gone (-32601). A request that did not
 * negotiate the extension gets -32021 on `tasks/*` and on a tool that requires a task.
 *
 * The SDK's `@modelcontextprotocol/ext-tasks` is a requester (its `receiver` serves the 2025-11-25
 * client side, with its own in-memory state), so the server side is written here over our store.
 */
import { CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, fromJsonSchema, type AuthInfo, type Server, type ServerContext } from "@modelcontextprotocol/server";
import { checkAnswers } from "../../../../domain/workflow/answer-validation.js";
import { APPROVAL_FIELD, approvalForm, pickAnsweredValues, planInputElicitation } from "../../../../domain/workflow/interaction.js";
import type { JsonValue } from "../../../../domain/json.js";
import type { PausedRun } from "../../../../domain/workflow/paused-run.js";
import type { StructureEntrypoint } from "../../../../domain/workflow/workflow-definition.js";
import type { McpTaskRecord } from "../../../../ports/mcp-task-store.js";
import { answererOfAuth, tenantOfAuth } from "../transport/http-tenant.js";
import { acquireRunSlot } from "../transport/http-admission.js";
import { openForms, RUN_FAILURE_META, type TaskForm, type TaskPause, type TaskRuns } from "./task-runs.js";

/** The extension's id: the key of `capabilities.extensions` on both sides. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

// The params of the extension's methods (the SDK's own schemas are 2025-11-25's).
const TaskIdParams = fromJsonSchema<{ taskId: string }>({ type: "object", properties: { taskId: { type: "string" } }, required: ["taskId"] });
// The SDK lifts `inputResponses` off the params (ctx.mcpReq.inputResponses), as for a retried call.
const UpdateParams = fromJsonSchema<{ taskId: string; inputResponses?: unknown }>({ type: "object", properties: { taskId: { type: "string" } }, required: ["taskId"] });

/** Whether the request's per-request client capabilities name the tasks extension. */
function negotiated(ctx: ServerContext): boolean {
  const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  return typeof capabilities?.extensions?.[TASKS_EXTENSION] === "object";
}

const missingExtension = (what: string) =>
  new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } as never, `${what} needs the ${TASKS_EXTENSION} extension in the request's client capabilities`);

const notFound = (taskId: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId} (never created in this project, or pruned after its TTL)`);

/**
 * Whether a `tools/call` of `entrypoint` becomes a task on 2026-07-28: the entrypoint declares
 * `task` and the request negotiated the extension; a `task: "required"` entrypoint called without
 * it is refused with -32021 (the client's legacy `params.task` hint is ignored either way).
 *
 * @example
 * if (wantsTask(entrypoint, ctx)) return createdTaskOf(await runs.start(entrypoint, args, undefined));
 */
export function wantsTask(entrypoint: StructureEntrypoint, ctx: ServerContext): boolean {
  if (entrypoint.task === undefined) return false;
  if (negotiated(ctx)) return true;
  if (entrypoint.task === "required") throw missingExtension(`tool ${entrypoint.id}`);
  return false;
}

/** The task fields every 2026-07-28 task answer carries. */
function taskFields(row: McpTaskRecord, status: string = row.status) {
  return {
    taskId: row.taskId,
    status,
    createdAt: new Date(row.createdAt).toISOString(),
    lastUpdatedAt: new Date(row.updatedAt).toISOString(),
    ttlMs: row.ttlMs,
    pollIntervalMs: row.pollIntervalMs,
    ...(row.statusMessage !== null ? { statusMessage: row.statusMessage } : {}),
  };
}

/**
 * The flat `CreateTaskResult` of a new task (no `result`, `error` or `requestState`).
 *
 * @example
 * return createdTaskOf(record); // { resultType: "task", taskId, status: "working", ttlMs, … }
 */
export function createdTaskOf(row: McpTaskRecord) {
  return { resultType: "task" as const, ...taskFields(row) };
}

/** The `inputRequests` entry of a paused task's form: the elicitation the run asked for. */
function inputRequestOf(form: TaskForm): Record<string, unknown> {
  if (form.kind === "approval") {
    const approval = approvalForm(form.request.toolId, form.request.arguments);
    return { method: "elicitation/create", params: { mode: "form", message: approval.message, requestedSchema: approval.requestedSchema } };
  }
  const plan = planInputElicitation(form.request.fields ?? []);
  // A form MCP cannot carry (file fields) is still named, with the summary the run reported.
  const requestedSchema = plan.elicitable ? plan.requestedSchema : { type: "object", properties: {} };
  return { method: "elicitation/create", params: { mode: "form", message: plan.elicitable ? form.request.message : `${form.request.message} (${plan.reason})`, requestedSchema } };
}

/**
 * The `DetailedTask` of a row as `tasks/get` answers it on 2026-07-28: a run's tool error is
 * `completed` with `result.isError`; a run that failed (threw, timed out, could not run) is
 * `failed` with an inlined JSON-RPC `error`; a paused run is `input_required` with its question.
 *
 * @example
 * const task = detailedTaskOf(row); // { taskId, status: "completed", result: { content: […] }, … }
 */
export function detailedTaskOf(row: McpTaskRecord) {
  const result = (row.result ?? null) as (Record<string, unknown> & { _meta?: Record<string, unknown> }) | null;
  if (row.status === "completed" || (row.status === "failed" && result !== null && result._meta?.[RUN_FAILURE_META] === undefined)) {
    // The inlined result is a 2026-07-28 CallToolResult, so it carries its own resultType.
    return { ...taskFields(row, "completed"), result: { ...(result ?? { content: [] }), resultType: "complete" } };
  }
  if (row.status === "failed") {
    const code = result?._meta?.[RUN_FAILURE_META];
    return { ...taskFields(row), error: { code: ProtocolErrorCode.InternalError, message: row.statusMessage ?? "the task's run failed", ...(typeof code === "string" ? { data: { code } } : {}) } };
  }
  if (row.status === "input_required" && row.paused !== null) {
    const open = openForms(row.paused as unknown as TaskPause);
    return { ...taskFields(row), inputRequests: Object.fromEntries(Object.entries(open).map(([requestId, form]) => [requestId, inputRequestOf(form)])) };
  }
  return taskFields(row);
}

/** The answer of a paused run from the client's `inputResponses` entry; `null`: declined or cancelled. */
function answerOf(requestId: string, form: TaskForm, response: unknown, authInfo: AuthInfo | undefined): PausedRun["answers"][string] | null {
  const { action, content } = (typeof response === "object" && response !== null ? response : {}) as { action?: unknown; content?: Record<string, unknown> };
  if (action === "decline" || action === "cancel") return null;
  if (action !== "accept") throw new ProtocolError(ProtocolErrorCode.InvalidParams, `inputResponses.${requestId} must be an elicitation result: { action: "accept" | "decline" | "cancel", content? }`);
  const answeredBy = answererOfAuth(authInfo, Date.now());
  if (form.kind === "approval") {
    const decision = content?.[APPROVAL_FIELD];
    if (decision !== "approve" && decision !== "deny") throw new ProtocolError(ProtocolErrorCode.InvalidParams, `the approval's ${APPROVAL_FIELD} must be "approve" or "deny"`);
    return { kind: "approval", decision: decision === "approve" ? { outcome: "approved", answeredBy } : { outcome: "denied", reason: "denied by the user", answeredBy } };
  }
  const fields = form.request.fields ?? [];
  const values = pickAnsweredValues(fields, content);
  const problems = checkAnswers(fields, values);
  if (problems.length > 0) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `the answer does not fit the form: ${problems.map((p) => p.problem).join("; ")}`);
  return { kind: "input", values: values as Record<string, JsonValue>, answeredBy };
}

/**
 * Adds the extension's `tasks/get`, `tasks/update` and `tasks/cancel` to a 2026-07-28 server;
 * `entrypointOf` finds a task's entrypoint in the published catalog (to run it again with an
 * answer). Each request is gated on the extension and scoped to its tenant (MCP-13).
 *
 * @example
 * addTasksExtension(server, runs, async (id) => (await catalog).structure.entrypoints.find((e) => e.id === id));
 */
export function addTasksExtension(server: Server, runs: TaskRuns, entrypointOf: (id: string) => Promise<StructureEntrypoint | undefined>): void {
  const tenantOf = (ctx: ServerContext) => tenantOfAuth(ctx.http?.authInfo) ?? null;
  const readFor = async (method: string, taskId: string, ctx: ServerContext) => {
    if (!negotiated(ctx)) throw missingExtension(method);
    const row = await runs.read(taskId, tenantOf(ctx));
    if (!row) throw notFound(taskId);
    return row;
  };

  server.setRequestHandler("tasks/get", { params: TaskIdParams }, async (params, ctx) => detailedTaskOf(await readFor("tasks/get", params.taskId, ctx)) as never);

  // Cancelling a final task is the same empty ack (idempotent); only an unknown task is an error.
  server.setRequestHandler("tasks/cancel", { params: TaskIdParams }, async (params, ctx) => {
    await readFor("tasks/cancel", params.taskId, ctx);
    await runs.cancel(params.taskId);
    return {} as never;
  });

  // The answers to a paused task's questions; keys it does not wait for are ignored (acked), so a
  // late or repeated update is harmless. The task goes on on this host, on the same run id.
  server.setRequestHandler("tasks/update" as never, { params: UpdateParams }, (async (params: { taskId: string; inputResponses?: unknown }, ctx: ServerContext) => {
    const row = await readFor("tasks/update", params.taskId, ctx);
    const responses = ctx.mcpReq.inputResponses ?? params.inputResponses;
    if (typeof responses !== "object" || responses === null || Array.isArray(responses)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "tasks/update needs inputResponses: an object of answers keyed by the task's inputRequests ids");
    const inputResponses = responses as Record<string, unknown>;
    if (row.status !== "input_required" || row.paused === null) return {};
    // MCP-20: any subset of the open questions may be answered; the task waits for the rest.
    const open = Object.entries(openForms(row.paused as unknown as TaskPause)).filter(([requestId]) => requestId in inputResponses);
    if (open.length === 0) return {};
    const authInfo = ctx.http?.authInfo;
    const given = open.map(([requestId, form]) => [requestId, answerOf(requestId, form, inputResponses[requestId], authInfo)] as const);
    if (given.some(([, answer]) => answer === null)) {
      // Declining the form ends the run, as it does for a call without a task.
      await runs.fail(row.taskId, "[steamharness] [mcp] the user declined the request for input; the task's run was ended");
      return {};
    }
    const entrypoint = await entrypointOf(row.entrypointId);
    if (!entrypoint) throw new ProtocolError(ProtocolErrorCode.InternalError, `task ${row.taskId} is a run of ${row.entrypointId}, which this host's catalog does not publish`);
    // TEN-5: the resumed run takes its tenant's concurrency slot again, or the answer is refused (the task stays waiting).
    const slot = await acquireRunSlot(authInfo, `The task ${row.taskId} still waits for this answer.`);
    // Another host may have claimed it first with its own update: then that run goes on.
    await runs.resume(row, entrypoint, Object.fromEntries(given) as PausedRun["answers"], tenantOfAuth(authInfo), slot);
    return {};
  }) as never);
}
