import { SteamharnessError } from "../../domain/errors.js";
import type { DecisionAnswerer } from "../../domain/agent/decision-answerer.js";
import type { JsonObject, JsonValue } from "../../domain/json.js";
import { checkAnswers } from "../../domain/workflow/answer-validation.js";
import type { PendingInteraction, WorkflowRunReport } from "../../domain/workflow/run-report.js";
import type { PersistentValueStore } from "../../ports/persistent-value-store.js";
import type { ToolPermissionDecision } from "../../ports/tool-permissions.js";
import type { UserInputResponse } from "../../ports/user-input.js";
import type { RunHandlers } from "../../ports/workflow-workers.js";
import type { ProjectRunner } from "../../ports/project-runner.js";
import { tenantDataDirs } from "./host-options.js";

// DX-10: a run that ended waiting for a person (`run` without a terminal, exit code 3; an MCP
// call that ended `interaction_required`) is kept by its run id in the project's persistent
// values, so `steamharness answer` or a later MCP call — from another process — can give the
// answer and run it again on the same run id. Request ids such as
// `input-1` repeat across runs, so answers are kept per run, never by request id alone.

/**
 * An answer given from outside: an approval decision, or the values of an input form; who gave
 * it (UI-7) travels with it (`decision.answeredBy`, `answeredBy`) to the run's decision event.
 */
export type PausedRunAnswer = { kind: "approval"; decision: Exclude<ToolPermissionDecision, { outcome: "pending" }> } | { kind: "input"; values: Record<string, JsonValue>; answeredBy?: DecisionAnswerer };

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

const PREFIX = "steamharness.run.paused.";

/**
 * The paused runs of one project in a persistent-value store.
 *
 * @example
 * const paused = createPausedRuns(storage.values, projectId);
 * await paused.save({ runId, entrypointId, args, pending, answers: {} });
 */
export function createPausedRuns(values: PersistentValueStore, projectId: string) {
  return {
    /** The paused run of this id, or `null`. */
    async get(runId: string): Promise<PausedRun | null> {
      const stored = (await values.get(projectId, `${PREFIX}${runId}`)) as unknown as PausedRun | null;
      return stored && stored.runId === runId ? stored : null;
    },
    /** Keeps (or replaces) a paused run. */
    async save(run: PausedRun): Promise<void> {
      await values.set(projectId, `${PREFIX}${run.runId}`, run as unknown as JsonObject);
    },
    /** Forgets a run that ended. */
    async delete(runId: string): Promise<void> {
      await values.delete(projectId, `${PREFIX}${runId}`);
    },
  };
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

/**
 * Opens the paused runs of a runner's project, in its persistent-value store (`--persistent-value-store-dir`),
 * or in the store of `dataTenant` (TEN-3): a tenant finds only its own runs, by any run id.
 *
 * @example
 * const paused = await pausedRunsOf(runner);
 */
export async function pausedRunsOf(runner: ProjectRunner, dataTenant?: string) {
  const dirs = dataTenant === undefined ? runner.dirs : tenantDataDirs(runner.dirs, dataTenant);
  const storage = (await runner.ports.stores.loadValueStores())(dirs.persistentValueStoreDir);
  return { ...createPausedRuns(storage.values, runner.location.manifest.id), close: () => storage.close() };
}

/**
 * Keeps a run that ended `waiting_for_input` so `answer` can run it again (DX-10); forgets a run
 * that ended otherwise. `previous` is the kept run being answered, whose answers carry over.
 *
 * @example
 * await keepPausedRun(runner, report, { entrypointId: "ask", args: {} });
 */
export async function keepPausedRun(runner: ProjectRunner, report: WorkflowRunReport, start: { entrypointId: string; args: JsonValue; answers?: PausedRun["answers"]; tenant?: string; dataTenant?: string }): Promise<void> {
  const paused = await pausedRunsOf(runner, start.dataTenant);
  try {
    if (report.status === "waiting_for_input" && report.pending) {
      await paused.save({ runId: report.runId, entrypointId: start.entrypointId, args: start.args, pending: report.pending, answers: start.answers ?? {}, ...(start.tenant !== undefined ? { tenant: start.tenant } : {}) });
    } else if (start.answers !== undefined) {
      await paused.delete(report.runId);
    }
  } finally {
    await paused.close();
  }
}
