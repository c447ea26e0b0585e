import type { DecisionAnswerer } from "../../../domain/agent/decision-answerer.js";
import type { JsonValue } from "../../../domain/json.js";
import type { WorkflowRunReport } from "../../../domain/workflow/run-report.js";
import { dataTenantOf } from "./transport/http-tenant.js";
import type { PausedRun, PausedRunAnswer } from "../../../domain/workflow/paused-run.js";
import type { ProjectRunner } from "../../../ports/project-runner.js";
import { invalidParams } from "./workflow-result.js";

// DX-10 over MCP: a call that ended `interaction_required` (a client without form elicitation)
// is kept by its run id; calling the same tool again later — from any connection, any process —
// with `_meta["steamharness/answer"]` gives the answer and runs it again on that run id.

/** The `_meta` key of a tool call that answers a paused run. */
export const ANSWER_META = "steamharness/answer";

/** What `_meta["steamharness/answer"]` carries: the run, the request, and a decision or the form's values. */
export interface AnswerMeta {
  runId: string;
  requestId: string;
  /** For an approval. */
  decision?: "approve" | "deny";
  /** With `decision: "deny"`: why (recorded with the denial). */
  reason?: string;
  /** For an input form: its field values. */
  values?: Record<string, JsonValue>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function checkedMeta(value: unknown): AnswerMeta {
  const shape = `_meta["${ANSWER_META}"] must be { runId, requestId, decision: "approve" | "deny" (reason?) } or { runId, requestId, values: { <field>: … } }`;
  if (!isObject(value) || typeof value.runId !== "string" || typeof value.requestId !== "string") throw invalidParams(shape);
  const hasDecision = value.decision !== undefined;
  if (hasDecision === (value.values !== undefined)) throw invalidParams(shape);
  if (hasDecision && value.decision !== "approve" && value.decision !== "deny") throw invalidParams(`${shape}; got decision ${JSON.stringify(value.decision)}`);
  if (!hasDecision && !isObject(value.values)) throw invalidParams(shape);
  if (value.reason !== undefined && typeof value.reason !== "string") throw invalidParams(shape);
  return value as unknown as AnswerMeta;
}

function answerOf(meta: AnswerMeta, run: PausedRun, answeredBy: DecisionAnswerer): PausedRunAnswer {
  const { pending } = run;
  if (pending.kind === "approval") {
    if (meta.decision === undefined) throw invalidParams(`request ${pending.requestId} of run ${run.runId} is an approval: answer it with decision "approve" or "deny"`);
    return { kind: "approval", decision: meta.decision === "approve" ? { outcome: "approved", answeredBy } : { outcome: "denied", reason: meta.reason ?? "denied over MCP", answeredBy } };
  }
  if (meta.values === undefined) throw invalidParams(`request ${pending.requestId} of run ${run.runId} asks for input: answer it with values (${pending.fields.join("; ")})`);
  return { kind: "input", values: meta.values, answeredBy };
}

/**
 * The paused run a tool call answers (`_meta["steamharness/answer"]`), with that answer added to
 * the ones it already used; `undefined` at once (no promise) for an ordinary call, so its run can
 * start in the same turn. A malformed answer, an unknown run, a run of another tool or another
 * request id rejects with JSON-RPC InvalidParams naming what is wrong. `answeredBy` (UI-7) is
 * who gives the answer (the caller's principal, `{ surface: "mcp" }` without one).
 *
 * @example
 * const answered = await answeredRun(runner, "ask", request.params._meta, tenant, answererOfAuth(extra.authInfo, Date.now()));
 */
export function answeredRun(runner: ProjectRunner, toolName: string, meta: Record<string, unknown> | undefined, tenant: string | undefined, answeredBy: DecisionAnswerer): Promise<PausedRun> | undefined {
  if (meta?.[ANSWER_META] === undefined) return undefined;
  return pausedRunAnswered(runner, toolName, meta[ANSWER_META], tenant, answeredBy);
}

/** The asynchronous part of {@link answeredRun}: the answer checked against the paused run it names. */
async function pausedRunAnswered(runner: ProjectRunner, toolName: string, answer: unknown, tenant: string | undefined, answeredBy: DecisionAnswerer): Promise<PausedRun> {
  const given = checkedMeta(answer);
  // TEN-3: looked up in the caller's own namespace only; BUD-4: another tenant's run is an unknown one.
  const run = await runner.findPausedRun(given.runId, dataTenantOf(tenant));
  if (!run || run.tenant !== tenant) throw invalidParams(`no paused run ${given.runId} in this project (a call that ended interaction_required, not answered since)`);
  if (run.entrypointId !== toolName) throw invalidParams(`run ${given.runId} is a run of tool ${run.entrypointId}: call that tool to answer it`);
  if (run.pending.requestId !== given.requestId) throw invalidParams(`run ${given.runId} waits for ${run.pending.kind} ${run.pending.requestId}, not ${given.requestId}`);
  return { ...run, answers: { ...run.answers, [given.requestId]: answerOf(given, run, answeredBy) } };
}

/**
 * Keeps a call's run when it ended waiting for a person (to be answered later), forgets an
 * answered run that ended; an answer that did not fit the form leaves the run paused as it was.
 *
 * @example
 * await keepCallRun(runner, report, { entrypointId: "ask", args }, answered);
 */
export async function keepCallRun(runner: ProjectRunner, report: WorkflowRunReport, start: { entrypointId: string; args: JsonValue; tenant?: string }, answered: PausedRun | undefined): Promise<void> {
  if (answered !== undefined && report.status === "failed" && report.error?.code === "input_validation") return;
  if (answered === undefined && report.status !== "waiting_for_input") return;
  const dataTenant = dataTenantOf(start.tenant);
  await runner.keepPausedRun(report, { ...start, ...(answered ? { answers: answered.answers } : {}), ...(dataTenant !== undefined ? { dataTenant } : {}) });
}
