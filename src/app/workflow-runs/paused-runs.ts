import type { JsonObject } from "../../domain/json.js";
import type { PausedRun } from "../../domain/workflow/paused-run.js";
import type { PersistentValueStore } from "../../ports/persistent-value-store.js";
import type { ProjectRunner } from "../../ports/project-runner.js";

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
 * The paused runs of a runner's project as {@link ProjectRunner} serves them: each call opens the
 * persistent-value store of the run's data dirs (`--persistent-value-store-dir`, or the tenant's
 * own folder of it, TEN-3: a tenant finds only its own runs, by any run id) and closes it before
 * it resolves.
 *
 * @example
 * const paused = createRunnerPausedRuns({ ports, location, dataDirs });
 * const run = await paused.findPausedRun("run-1");
 */
export function createRunnerPausedRuns(runner: Pick<ProjectRunner, "ports" | "location" | "dataDirs">): Pick<ProjectRunner, "findPausedRun" | "keepPausedRun"> {
  const open = async (dataTenant?: string) => {
    const storage = (await runner.ports.stores.loadValueStores())(runner.dataDirs(dataTenant).persistentValueStoreDir);
    return { ...createPausedRuns(storage.values, runner.location.manifest.id), close: () => storage.close() };
  };
  return {
    async findPausedRun(runId, dataTenant) {
      const paused = await open(dataTenant);
      return paused.get(runId).finally(() => paused.close());
    },
    async keepPausedRun(report, start) {
      const paused = await open(start.dataTenant);
      try {
        if (report.status === "waiting_for_input" && report.pending) {
          await paused.save({ runId: report.runId, entrypointId: start.entrypointId, args: start.args, pending: report.pending, answers: start.answers ?? {}, ...(start.tenant !== undefined ? { tenant: start.tenant } : {}) });
        } else if (start.answers !== undefined) {
          await paused.delete(report.runId);
        }
      } finally {
        await paused.close();
      }
    },
  };
}
