import { ElicitResultSchema } from "@modelcontextprotocol/core";
import { RELATED_TASK_META_KEY, type AuthInfo, type ElicitRequestFormParams, type ElicitResult, type Server } from "@modelcontextprotocol/server";
import { SteamharnessError } from "../../../domain/errors.js";
import { checkAnswers } from "../../../domain/workflow/answer-validation.js";
import { APPROVAL_FIELD, approvalForm, pickAnsweredValues, planInputElicitation, summarizeFields } from "../../../domain/workflow/interaction.js";
import type { PendingInteraction } from "../../../domain/workflow/run-report.js";
import type { ToolPermissionDecision, ToolPermissionRequest } from "../../../ports/tool-permissions.js";
import type { UserInputField, UserInputRequest, UserInputResponse } from "../../../ports/user-input.js";
import { interactionRequired } from "../../../domain/workflow/run-report.js";
import type { RunHandlers } from "../../../ports/workflow-workers.js";
import { answererOfAuth } from "./transport/http-tenant.js";

/** Options of {@link createElicitationHandlers}. */
export interface ElicitationHandlerOptions {
  /** The tool call's signal: aborting it abandons the open form. */
  signal: AbortSignal;
  /** How long a person may take to answer one form; one hour by default. */
  timeoutMs?: number;
  /** MCP-14: the task the forms belong to (`io.modelcontextprotocol/related-task` in their `_meta`). */
  relatedTaskId?: string;
  /** The request whose response stream carries the forms (over HTTP, the `tasks/result` call's). */
  relatedRequestId?: string | number;
  /** UI-7: the verified auth of that request, whose principal is recorded as who answered (none: `{ surface: "mcp" }`). */
  authInfo?: AuthInfo;
}

/**
 * Whether the server may send the client a request of its own (a form, a sampling request): on
 * 2025-11-25 (and stdio) it may; the 2026-07-28 revision has none: its input-required results
 * replace them (MCP-19, input-required.ts), and where none is built a run that waits answers
 * `interaction_required`.
 *
 * @example
 * if (!canAskClient(server)) throw interactionRequired(pending, "…");
 */
export function canAskClient(server: Server): boolean {
  // Dated revisions compare as strings; undefined: not negotiated yet (never for a handler).
  const version = server.getNegotiatedProtocolVersion();
  return version === undefined || version < MODERN_REVISION;
}

/** The first revision without server-to-client requests. */
const MODERN_REVISION = "2026-07-28";

function canElicitForms(server: Server): boolean {
  return canAskClient(server) && server.getClientCapabilities()?.elicitation?.form !== undefined;
}

function ended(action: "decline" | "cancel", what: string): SteamharnessError {
  return new SteamharnessError("cancelled", `the user ${action === "decline" ? "declined" : "cancelled"} ${what}; the run was ended`);
}

const DECISION_FIELD: UserInputField = { name: APPROVAL_FIELD, type: "string", options: ["approve", "deny"], required: true };

// The SDK's elicitInput checks an accepted form itself and rejects a misfit as a bare JSON-RPC
// error, which the run would report as `internal`. The form is sent as a plain request instead
// and checked against the declared fields, so a misfit is `input_validation` naming the field.
async function askForm(server: Server, params: ElicitRequestFormParams, options: { signal: AbortSignal; timeout: number; relatedTaskId?: string; relatedRequestId?: string | number }): Promise<ElicitResult> {
  const { relatedTaskId, ...rest } = options;
  const related = relatedTaskId === undefined ? params : { ...params, _meta: { ...params._meta, [RELATED_TASK_META_KEY]: { taskId: relatedTaskId } } };
  return server.request({ method: "elicitation/create", params: related }, ElicitResultSchema, rest);
}

function checkedAnswers(what: string, fields: readonly UserInputField[], values: Record<string, unknown>): void {
  const problems = checkAnswers(fields, values);
  if (problems.length === 0) return;
  throw new SteamharnessError("input_validation", `the answer to ${what} does not fit the form: ${problems.map((p) => p.problem).join("; ")}`, {
    field: problems[0]!.field,
    data: { problems: problems.map((p) => p.problem) },
  });
}

/**
 * MCP-6: answers a run's input and approval requests by form elicitation on the calling client,
 * as many times as the run asks, on the same run. Without form elicitation, or for a form MCP
 * cannot carry (file fields, arrays without static options), the run ends with
 * `interaction_required` and a summary of the pending fields. Approvals are explicit
 * approve/deny choices; decline and cancel end the run, so nothing is ever approved implicitly.
 * An accepted answer that does not fit its field (outside the options, a required field left
 * out) ends the run with `input_validation` naming the field and what it accepts. Every answer
 * says who gave it (UI-7): the request's principal, or `{ surface: "mcp" }` without one.
 *
 * @example
 * const report = await host.run(entrypoint, prepared, createElicitationHandlers(server, { signal: extra.signal }));
 */
export function createElicitationHandlers(server: Server, options: ElicitationHandlerOptions): RunHandlers {
  const answeredBy = () => answererOfAuth(options.authInfo, Date.now());
  const requestOptions = {
    signal: options.signal,
    timeout: options.timeoutMs ?? 3_600_000,
    ...(options.relatedTaskId !== undefined ? { relatedTaskId: options.relatedTaskId } : {}),
    ...(options.relatedRequestId !== undefined ? { relatedRequestId: options.relatedRequestId } : {}),
  };
  return {
    async onInput(request: UserInputRequest): Promise<UserInputResponse> {
      const fields = request.fields ?? [];
      const pending: PendingInteraction = { kind: "input", requestId: request.requestId, message: request.message, fields: summarizeFields(fields) };
      if (!canElicitForms(server)) throw interactionRequired(pending, "the run is waiting for input and this MCP client does not support form elicitation");
      const plan = planInputElicitation(fields);
      if (!plan.elicitable) throw interactionRequired(pending, `the run is waiting for input that an MCP form cannot carry: ${plan.reason}`);
      const result = await askForm(server, { mode: "form", message: request.message, requestedSchema: plan.requestedSchema as never }, requestOptions);
      if (result.action !== "accept") throw ended(result.action, "the request for input");
      const values = pickAnsweredValues(fields, result.content);
      checkedAnswers(JSON.stringify(request.message), fields, values);
      return { outcome: "answered", values, answeredBy: answeredBy() };
    },
    async onApproval(request: ToolPermissionRequest): Promise<ToolPermissionDecision> {
      const form = approvalForm(request.toolId, request.arguments);
      const pending: PendingInteraction = { kind: "approval", requestId: request.requestId, message: form.message, fields: [`${APPROVAL_FIELD} (string, options: approve|deny, required)`] };
      if (!canElicitForms(server)) throw interactionRequired(pending, `the run is waiting for approval of tool ${request.toolId} and this MCP client does not support form elicitation`);
      const result = await askForm(server, { mode: "form", message: form.message, requestedSchema: form.requestedSchema as never }, requestOptions);
      if (result.action !== "accept") throw ended(result.action, `the approval of tool ${request.toolId}`);
      const decision = result.content?.[APPROVAL_FIELD];
      checkedAnswers(`the approval of tool ${request.toolId}`, [DECISION_FIELD], { [APPROVAL_FIELD]: decision });
      if (decision === "approve") return { outcome: "approved", answeredBy: answeredBy() };
      return { outcome: "denied", reason: "denied by the user", answeredBy: answeredBy() };
    },
  };
}
