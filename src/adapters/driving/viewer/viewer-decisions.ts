import { SteamharnessError } from "../../../domain/errors.js";
import type { Storage } from "../../../ports/storage.js";
import type { DecisionAnswerer } from "../../../domain/agent/decision-answerer.js";
import { sendAgentSessionCommand } from "../../../app/session-host/control.js";
import { answerApproval, type ApprovalGovernance } from "../../../app/approvals/answer-approval.js";
import { createStoredDecisions, type StoredDecision } from "./stored-decisions.js";
import type { ViewerSessions } from "./viewer-sessions.js";

/** What the page posts to answer a waiting request (VIEW-3). */
export interface ViewerAnswer {
  /** The viewer session id. */
  s: string;
  runId: string;
  requestId: string;
  /** approved / denied (tools), answered / declined (questions), approved / declined (plans). */
  outcome: "approved" | "denied" | "answered" | "declined";
  /** A question's answer. */
  answer?: string;
  /** Why a tool was denied, or what a declined plan should change (a revision). */
  reason?: string;
}

/** How the answer reached the run. */
export interface ViewerAnswerResult {
  recorded: true;
  /**
   * `host`: a session host took the `continue` command and runs the task now; `queued`: the
   * command waits in the host's durable inbox for the next host; `rerun`: the decision waits for
   * the run's host to run it again on its run id.
   */
  resumed: "host" | "queued" | "rerun";
  taskId?: string;
}

const refuse = (message: string, field: string): never => {
  throw new SteamharnessError("input_validation", message, { field });
};

/** Checks the posted body; throws `input_validation` naming the field. */
export function parseViewerAnswer(body: unknown): ViewerAnswer {
  if (body === null || typeof body !== "object" || Array.isArray(body)) refuse("the body must be a JSON object", "body");
  const value = body as Record<string, unknown>;
  for (const field of ["s", "runId", "requestId"] as const) if (typeof value[field] !== "string" || value[field] === "") refuse(`${field} must be a non-empty string`, field);
  if (!["approved", "denied", "answered", "declined"].includes(value.outcome as string)) refuse("outcome must be approved, denied, answered or declined", "outcome");
  for (const field of ["answer", "reason"] as const) {
    if (value[field] !== undefined && (typeof value[field] !== "string" || (value[field] as string).length > 200_000)) refuse(`${field} must be a string of at most 200000 characters`, field);
  }
  return value as unknown as ViewerAnswer;
}

/**
 * Answers a waiting request from the viewer's page (VIEW-3), through the ports every host uses:
 * the decision is recorded with {@link createStoredDecisions} (the `toolPermissions` /
 * `userInput` ports a host wires in, kept in `storage.values`), and when a session host holds the
 * conversation, a `continue` command goes to it through `sendAgentSessionCommand` (with the answer of
 * a question) so the task runs at once. Refuses (`conflict`) a request that is not waiting.
 *
 * @example
 * await answerFromViewer({ storage, sessions }, { s, runId, requestId, outcome: "approved" });
 */
export async function answerFromViewer(deps: { storage: Storage; sessions: ViewerSessions; approvals?: ApprovalGovernance }, answer: ViewerAnswer): Promise<ViewerAnswerResult> {
  const session = await deps.sessions.get(answer.s);
  await session.index.refresh();
  const run = session.index.run(answer.runId);
  const wait = run?.status === "waiting" ? run.waits.find((entry) => entry.requestId === answer.requestId) : undefined;
  if (!wait) throw new SteamharnessError("conflict", "this request is not waiting for an answer (it was answered, or the run moved on)", { field: "requestId" });
  // A person at this machine answered, now (UI-7): the viewer has a token, not a principal.
  const answeredBy = { surface: "viewer", at: Date.now() };
  const decision = decisionOf(wait.kind, answer, answeredBy);
  // Issue 47: a tool approval is answered through the one app step (the governed decide() when the host governs approvals).
  if (decision.kind === "tool_approval") decision.decision = await answerApproval(deps.approvals, { requestId: answer.requestId, ...decision.decision, answeredBy });
  const decisions = createStoredDecisions({ values: deps.storage.values, projectId: session.address.projectId });
  await decisions.record(answer.requestId, decision);

  const conversationId = session.address.conversationId;
  const backend = deps.storage.sessions;
  if (conversationId === undefined || !backend) return { recorded: true, resumed: "rerun" };
  const hostStore = await backend.openHostStore(conversationId, { create: false });
  if (!hostStore) return { recorded: true, resumed: "rerun" };
  let taskId: string | undefined;
  try {
    taskId = (await hostStore.findTasks({ runId: answer.runId, status: ["waiting"] }))[0]?.taskId;
  } finally {
    await hostStore.close();
  }
  if (taskId === undefined) return { recorded: true, resumed: "rerun" };
  const answered = wait.kind === "question" && answer.outcome === "answered";
  const result = await sendAgentSessionCommand(
    conversationId,
    { type: "continue", taskId, ...(answered ? { answer: answer.answer ?? "", requestId: answer.requestId, answeredBy } : {}) },
    { sessions: backend, timeoutMs: 3000 },
  );
  return { recorded: true, resumed: result.type === "stored" ? "queued" : "host", taskId };
}

function decisionOf(kind: "tool_approval" | "question" | "plan", answer: ViewerAnswer, answeredBy: DecisionAnswerer): StoredDecision {
  const reason = answer.reason?.trim() ? answer.reason.trim() : undefined;
  switch (kind) {
    case "tool_approval":
      if (answer.outcome === "approved" || answer.outcome === "denied") return { kind, decision: { outcome: answer.outcome, ...(reason && answer.outcome === "denied" ? { reason } : {}), answeredBy } };
      break;
    case "question":
      if (answer.outcome === "answered") return { kind, response: { outcome: "answered", values: { answer: answer.answer ?? "" }, answeredBy } };
      if (answer.outcome === "declined") return { kind, response: { outcome: "declined", answeredBy } };
      break;
    case "plan":
      if (answer.outcome === "approved") return { kind, response: { outcome: "answered", values: { approved: true }, answeredBy } };
      // A decline with feedback asks for a revision (plan-step); a plain one ends the run.
      if (answer.outcome === "declined") return { kind, response: reason ? { outcome: "answered", values: { approved: false, feedback: reason }, answeredBy } : { outcome: "declined", answeredBy } };
      break;
  }
  throw new SteamharnessError("input_validation", `outcome ${answer.outcome} does not answer a ${kind.replace("_", " ")}`, { field: "outcome" });
}
