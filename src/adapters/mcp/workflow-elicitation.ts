import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SteamharnessError } from "../../domain/errors.js";
import { APPROVAL_FIELD, approvalForm, pickAnsweredValues, planInputElicitation, summarizeFields } from "../../domain/workflow/interaction.js";
import type { PendingInteraction } from "../../domain/workflow/run-report.js";
import type { ToolPermissionDecision, ToolPermissionRequest } from "../../ports/tool-permissions.js";
import type { UserInputRequest, UserInputResponse } from "../../ports/user-input.js";
import { interactionRequired } from "../workflow/run-host.js";
import type { RunHandlers } from "../workflow/worker-process.js";

/** Options of {@link createElicitationHandlers}. */
export interface ElicitationHandlerOptions {
  /** The tool call's signal: aborting it abandons the open form. */
  signal: AbortSignal;
  /** How long a person may take to answer one form; one hour by default. */
  timeoutMs?: number;
}

function canElicitForms(server: Server): boolean {
  return server.getClientCapabilities()?.elicitation?.form !== undefined;
}

function ended(action: "decline" | "cancel", what: string): SteamharnessError {
  return new SteamharnessError("cancelled", `the user ${action === "decline" ? "declined" : "cancelled"} ${what}; the run was ended`);
}

/**
 * MCP-6: answers a run's input and approval requests by form elicitation on the calling client,
 * as many times as the run asks, on the same run. Without form elicitation, or for a form MCP
 * cannot carry (file fields, arrays without static options), the run ends with
 * `interaction_required` and a summary of the pending fields. Approvals are explicit
 * approve/deny choices; decline and cancel end the run, so nothing is ever approved implicitly.
 *
 * @example
 * const report = await host.run(entrypoint, prepared, createElicitationHandlers(server, { signal: extra.signal }));
 */
export function createElicitationHandlers(server: Server, options: ElicitationHandlerOptions): RunHandlers {
  const requestOptions = { signal: options.signal, timeout: options.timeoutMs ?? 3_600_000 };
  return {
    async onInput(request: UserInputRequest): Promise<UserInputResponse> {
      const fields = request.fields ?? [];
      const pending: PendingInteraction = { kind: "input", requestId: request.requestId, message: request.message, fields: summarizeFields(fields) };
      if (!canElicitForms(server)) throw interactionRequired(pending, "the run is waiting for input and this MCP client does not support form elicitation");
      const plan = planInputElicitation(fields);
      if (!plan.elicitable) throw interactionRequired(pending, `the run is waiting for input that an MCP form cannot carry: ${plan.reason}`);
      const result = await server.elicitInput({ mode: "form", message: request.message, requestedSchema: plan.requestedSchema as never }, requestOptions);
      if (result.action !== "accept") throw ended(result.action, "the request for input");
      return { outcome: "answered", values: pickAnsweredValues(fields, result.content) };
    },
    async onApproval(request: ToolPermissionRequest): Promise<ToolPermissionDecision> {
      const form = approvalForm(request.toolId, request.arguments);
      const pending: PendingInteraction = { kind: "approval", requestId: request.requestId, message: form.message, fields: [`${APPROVAL_FIELD} (string, options: approve|deny, required)`] };
      if (!canElicitForms(server)) throw interactionRequired(pending, `the run is waiting for approval of tool ${request.toolId} and this MCP client does not support form elicitation`);
      const result = await server.elicitInput({ mode: "form", message: form.message, requestedSchema: form.requestedSchema as never }, requestOptions);
      if (result.action !== "accept") throw ended(result.action, `the approval of tool ${request.toolId}`);
      const decision = result.content?.[APPROVAL_FIELD];
      if (decision === "approve") return { outcome: "approved" };
      return { outcome: "denied", reason: "denied by the user" };
    },
  };
}
