/**
 * Issue 47 item 4: one way every surface answers a tool approval. A surface that took a person's
 * decision (the terminal, `steamharness answer`, an MCP form or `_meta` answer, the viewer, the
 * gateway, the browser chat) hands it to {@link answerApproval}: under a governed adapter the
 * decision is recorded by its `decide()` — refused when the answerer may not decide (GOV-4), with
 * the answerer in the decision and the audit chain (GOV-1/7) — and without one it is passed on as
 * it is. {@link governedAnswers} puts the same step in front of a host's own approval handler.
 */
import type { DecisionAnswerer } from "../../domain/agent/decision-answerer.js";
import type { ApprovalRequester } from "../../ports/approval-store.js";
import type { ToolPermissionAnswer, ToolPermissionDecision, ToolPermissionRequest } from "../../ports/tool-permissions.js";
import type { GovernedToolPermissions } from "./governed-tool-permissions.js";

/** What a surface needs of a governed adapter: ask (the port) and decide. */
export type ApprovalGovernance = Pick<GovernedToolPermissions, "request" | "decide">;

/** A person's answer to one approval request, as a surface took it. */
export interface ApprovalAnswerInput {
  requestId: string;
  outcome: "approved" | "denied";
  /** Who answered: the surface, and the remote principal's tenant and subject when there is one. */
  answeredBy: DecisionAnswerer;
  reason?: string;
}

/**
 * Records an answer: through `governance.decide()` when the host governs approvals (rejecting as
 * `decide` does: `forbidden`, `approval_expired`, `conflict`, `not_found`), and returns the port
 * answer the surface hands to the run, carrying who answered and when.
 *
 * @example
 * const decision = await answerApproval(runner.approvals, { requestId, outcome: "approved", answeredBy: { surface: "cli" } });
 */
export async function answerApproval(governance: ApprovalGovernance | undefined, input: ApprovalAnswerInput): Promise<ToolPermissionAnswer> {
  const reason = input.reason === undefined ? {} : { reason: input.reason };
  if (governance === undefined) return { outcome: input.outcome, ...(input.outcome === "denied" ? reason : {}), answeredBy: input.answeredBy };
  const { at: _at, ...approver } = input.answeredBy;
  const decision = await governance.decide({ requestId: input.requestId, outcome: input.outcome, approver, ...reason });
  const answeredBy = { ...decision.approver, at: decision.decidedAt };
  return input.outcome === "approved" ? { outcome: "approved", answeredBy } : { outcome: "denied", ...reason, answeredBy };
}

/**
 * A host's approval handler behind a governed adapter: the adapter answers first (its policy, a
 * recorded or standing decision, expiry); only a request it leaves `pending` reaches `ask` (a
 * terminal prompt, an MCP form, a paused run's answers), whose answer is recorded with
 * {@link answerApproval} and then taken through the adapter again, so a `once` decision is used
 * exactly once (GOV-5). `requester` fills a request that names none (the run's principal, GOV-1).
 * Without `governance`, `ask` itself.
 *
 * @example
 * const onApproval = governedAnswers(governance, handlers.onApproval, { tenant: "key:acme", subject: "k1" });
 */
export function governedAnswers(
  governance: ApprovalGovernance | undefined,
  ask: (request: ToolPermissionRequest) => Promise<ToolPermissionDecision>,
  requester?: ApprovalRequester,
): (request: ToolPermissionRequest) => Promise<ToolPermissionDecision> {
  if (governance === undefined) return ask;
  return async (given) => {
    const request = given.requestedBy === undefined && requester !== undefined ? { ...given, requestedBy: requester } : given;
    const first = await governance.request(request);
    if (first.outcome !== "pending") return first;
    const answer = await ask(request);
    if (answer.outcome !== "approved" && answer.outcome !== "denied") return answer;
    await answerApproval(governance, { requestId: request.requestId, outcome: answer.outcome, answeredBy: answer.answeredBy ?? { surface: "host" }, ...(answer.outcome === "denied" && answer.reason !== undefined ? { reason: answer.reason } : {}) });
    return governance.request(request);
  };
}
