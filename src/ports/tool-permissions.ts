import type { JsonValue } from "../domain/json.js";
import type { DecisionAnswerer } from "../domain/agent/decision-answerer.js";

/** One request to run a tool. `requestId` is stable for the same run and tool call, so a resumed run asks again with the same id. */
export interface ToolPermissionRequest {
  requestId: string;
  runId: string;
  toolId: string;
  arguments: JsonValue;
  /** The model's tool-call id, when the tool is called by an agent. */
  toolCallId?: string;
}

/**
 * A decision. `pending` means a person must decide: the run pauses with `user_input_required`
 * carrying `requestId`, and the host resumes it once the decision is recorded. `answeredBy`
 * (optional) says who decided; the run keeps it in its log (UI-7).
 */
export type ToolPermissionDecision =
  | { outcome: "approved"; answeredBy?: DecisionAnswerer }
  | { outcome: "denied"; reason?: string; answeredBy?: DecisionAnswerer }
  | { outcome: "pending" };

/**
 * The approval port behind `context.toolPermissions`; hosts bring their own adapter.
 * Asking twice with the same `requestId` must give the same final decision once one exists
 * (idempotent), and a decision for one `requestId` never applies to another.
 */
export interface ToolPermissions {
  /** Decides, or answers `pending`. Rejects only on adapter faults or when `signal` aborts. */
  request(request: ToolPermissionRequest, signal?: AbortSignal): Promise<ToolPermissionDecision>;
}
