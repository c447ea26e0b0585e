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
  /** The durable session the call belongs to, when known: a `session`-scoped decision (GOV-1) reaches its other calls. */
  sessionId?: string;
  /** Who asked (GOV-4), when known: a remote principal's tenant and subject; a governed adapter refuses their own approval. */
  requestedBy?: { tenant: string; subject: string };
  /** The host's estimate of the call's cost, for policies that bound it (GOV-6). */
  estimatedCost?: number;
}

/**
 * A decision. `pending` means a person must decide: the run pauses with `user_input_required`
 * carrying `requestId`, and the host resumes it once the decision is recorded. `answeredBy`
 * (optional) says who decided; the run keeps it in its log (UI-7). `expired` (GOV-2) means nobody
 * decided in time, which is not a denial: the gate rejects with `approval_expired`, and `then`
 * says whether the run fails or the model gets the expiry as its tool result and goes on.
 */
export type ToolPermissionDecision =
  | { outcome: "approved"; answeredBy?: DecisionAnswerer }
  | { outcome: "denied"; reason?: string; answeredBy?: DecisionAnswerer }
  | { outcome: "expired"; then: "fail" | "continue"; reason?: string }
  | { outcome: "pending" };

/** A decision a person (or a host's rule) gave: approved or denied, never pending or expired. */
export type ToolPermissionAnswer = Extract<ToolPermissionDecision, { outcome: "approved" | "denied" }>;

/**
 * The approval port behind `context.toolPermissions`; hosts bring their own adapter.
 * Asking twice with the same `requestId` must give the same final decision once one exists
 * (idempotent), and a decision for one `requestId` never applies to another.
 */
export interface ToolPermissions {
  /** Decides, or answers `pending`. Rejects only on adapter faults or when `signal` aborts. */
  request(request: ToolPermissionRequest, signal?: AbortSignal): Promise<ToolPermissionDecision>;
}
