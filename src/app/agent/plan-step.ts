import { SteamharnessError, UserInputRequiredError } from "../../domain/errors.js";
import { planRequestId, runEventId } from "../../domain/agent/ids.js";
import { approvalDecisionEvent } from "../../domain/agent/session-events.js";
import { extractFinalPlan } from "../../domain/agent/plan.js";
import type { JsonObject } from "../../domain/json.js";
import type { OutputItemStreamChunk } from "../../domain/output-items.js";
import type { PlanStepRun } from "./turn-parts.js";

/** What the model is told when its plan is approved; the run continues in build mode. */
export const PLAN_APPROVED_PROMPT = "The plan is approved. Carry it out now.";

/** How a plan decision ends: continue building, revise the plan, or end the run. */
export type PlanOutcome = "build" | "revise" | "end";

/**
 * The end of a plan-mode segment (OUT-4, SES-8): emits the final plan event (the plan card), then
 * asks for a decision through `context.userInput` with the plan's stable continuation identity.
 * Pending pauses the run; approval continues the same run in build mode with new item ids;
 * a decline with feedback revises the plan; a plain decline ends the run.
 *
 * @example
 * const outcome = yield* planStep(turn, 0, segmentStart);
 */
export async function* planStep(turn: PlanStepRun, planIndex: number, segmentStart: number): AsyncGenerator<OutputItemStreamChunk, PlanOutcome, undefined> {
  const { runId } = turn;
  const planId = runEventId(runId, "plan", planIndex);
  if (!turn.committed.has(planId)) {
    const text = extractFinalPlan(turn.messages.slice(segmentStart));
    await turn.append([{ eventId: planId, runId, type: "plan", payload: { planIndex, text } }]);
  }
  const planEvent = turn.committed.get(planId);
  const text = planEvent?.type === "plan" ? planEvent.payload.text : "";
  yield* turn.projector.finalPlan(text);

  const requestId = planRequestId(runId, planIndex);
  const decisionId = runEventId(runId, "plan", planIndex, "decision");
  if (!turn.committed.has(decisionId)) {
    const response = await turn.context.userInput.request({ requestId, runId, kind: "plan", message: text }, turn.context.signal);
    if (response.outcome === "pending") {
      await turn.append([{ eventId: runEventId(runId, "plan", planIndex, "wait"), runId, type: "approval_wait", payload: { requestId, kind: "plan" } }]);
      throw new UserInputRequiredError(requestId, { kind: "plan", plan: text, runId, planIndex }, "the plan needs a decision");
    }
    if (response.outcome === "cancelled") throw new SteamharnessError("cancelled", "the plan decision was cancelled");
    const values: JsonObject = response.outcome === "answered" ? response.values : {};
    const approved = response.outcome === "answered" && values.approved !== false && values.decision !== "reject";
    await turn.append([approvalDecisionEvent(decisionId, runId, { requestId, outcome: approved ? "approved" : "declined", values }, response.answeredBy)]);
  }
  const decision = turn.committed.get(decisionId);
  const payload = decision?.type === "approval_decision" ? decision.payload : null;
  const approved = payload?.outcome === "approved";
  const feedback = typeof payload?.values?.feedback === "string" && payload.values.feedback.trim() !== "" ? payload.values.feedback : null;
  yield* turn.projector.notice(approved ? "Plan approved." : feedback ? `Plan declined: ${feedback}` : "Plan declined.");
  if (!approved && feedback === null) return "end";
  const continueId = runEventId(runId, "plan", planIndex, "continue");
  const prompt = approved ? PLAN_APPROVED_PROMPT : `The plan was declined. Revise it. Feedback: ${feedback}`;
  await turn.append([{ eventId: continueId, runId, type: "user_message", payload: { message: { role: "user", content: prompt } } }]);
  const continuation = turn.committed.get(continueId);
  if (continuation?.type === "user_message") turn.messages.push(continuation.payload.message);
  return approved ? "build" : "revise";
}
