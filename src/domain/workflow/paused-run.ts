// DX-10: what is kept of a run that ended waiting for a person, and the run handlers that answer
// it again from the answers given (the use case that keeps them: src/app/workflow-runs/paused-runs.ts).
import type { DecisionAnswerer } from "../agent/decision-answerer.js";
import { SteamharnessError } from "../errors.js";
import type { JsonValue } from "../json.js";
import { checkAnswers } from "./answer-validation.js";
import type { PendingInteraction } from "./run-report.js";
import type { ToolPermissionDecision } from "../../ports/tool-permissions.js";
import type { UserInputResponse } from "../../ports/user-input.js";
import type { RunHandlers } from "../../ports/workflow-workers.js";

/**
 * An answer given from outside: an approval decision, or the values of an input form; who gave
 * it (UI-7) travels with it (`decision.answeredBy`, `answeredBy`) to the run's decision event.
 */
export type PausedRunAnswer =
  | { kind: "approval"; decision: Exclude<ToolPermissionDecision, { outcome: "pending" }> }
  | { kind: "input"; values: Record<string, JsonValue>; answeredBy?: DecisionAnswerer }
  // MCP-19: what the calling client answered a sampling or roots request of a 2026-07-28 round (checked again when used).
  | { kind: "client"; result: JsonValue };

/** What is kept of a paused run: how to run it again, what it waits for, the answers it already used. */
export interface PausedRun {
  runId: string;
  entrypointId: string;
  /** The arguments the run was started with (checked again when it is run again). */
  args: JsonValue;
  pending: PendingInteraction;
  answers: Record<string, PausedRunAnswer>;
  /** BUD-4: the tenant of the MCP caller that started it (absent: none); only that tenant answers it over MCP. */
  tenant?: string;
}

/**
 * Run handlers that answer from the paused run's answers (and note each one used), and ask
 * `fallback` for anything else (a request the run reaches after the answered one). An input
 * answer that does not fit the form's fields is an `input_validation` error naming the problems.
 *
 * @example
 * const handlers = answeringHandlers(paused, createTerminalHandlers(false));
 */
export function answeringHandlers(run: Pick<PausedRun, "answers">, fallback: RunHandlers): RunHandlers {
  return {
    async onInput(request): Promise<UserInputResponse> {
      const answer = run.answers[request.requestId];
      if (answer?.kind !== "input") return fallback.onInput(request);
      const problems = checkAnswers(request.fields ?? [], answer.values);
      if (problems.length > 0) {
        delete run.answers[request.requestId];
        throw new SteamharnessError("input_validation", `the answer to ${request.requestId} does not fit: ${problems.map((p) => `${p.field}: ${p.problem}`).join("; ")}`, { field: "--value", data: { problems: problems.map((p) => `${p.field}: ${p.problem}`) } });
      }
      return { outcome: "answered", values: answer.values, ...(answer.answeredBy ? { answeredBy: answer.answeredBy } : {}) };
    },
    async onApproval(request): Promise<ToolPermissionDecision> {
      const answer = run.answers[request.requestId];
      return answer?.kind === "approval" ? answer.decision : fallback.onApproval(request);
    },
  };
}
