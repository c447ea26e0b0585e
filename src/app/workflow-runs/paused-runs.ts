import type { JsonObject, JsonValue } from "../../domain/json.js";
import type { PausedRun } from "../../domain/workflow/paused-run.js";
import type { WorkflowRunReport } from "../../domain/workflow/run-report.js";
import type { PersistentValueStore } from "../../ports/persistent-value-store.js";
import type { ProjectRunner } from "../../ports/project-runner.js";
import { tenantDataDirs } from "./host-options.js";

// DX-10: a run that ended waiting for a person (`run` without a terminal, exit code 3; an MCP
// call that ended `interaction_required`) is kept by its run id in the project's persistent
// values, so `steamharness answer` or a later MCP call — from another process — can give the
// answer and run it again on the same run id. Request ids such as
// `input-1` repeat across runs, so answers are kept per run, never by request id alone.

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
 * Opens the paused runs of a runner's project, in its persistent-value store (`--persistent-value-store-dir`),
 * or in the store of `dataTenant` (TEN-3): a tenant finds only its own runs, by any run id.
 */
async function pausedRunsOf(runner: ProjectRunner, dataTenant?: string) {
  const dirs = dataTenant === undefined ? runner.dirs : tenantDataDirs(runner.dirs, dataTenant);
  const storage = (await runner.ports.stores.loadValueStores())(dirs.persistentValueStoreDir);
  return { ...createPausedRuns(storage.values, runner.location.manifest.id), close: () => storage.close() };
}

/**
 * The paused run of this id in the runner's project (in `dataTenant`'s store when given, TEN-3),
 * or `null`; the store is closed again before it resolves.
 *
 * @example
 * const run = await findPausedRun(runner, "run-1");
 */
export async function findPausedRun(runner: ProjectRunner, runId: string, dataTenant?: string): Promise<PausedRun | null> {
  const paused = await pausedRunsOf(runner, dataTenant);
  return paused.get(runId).finally(() => paused.close());
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
