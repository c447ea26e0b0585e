import { isSteamharnessError } from "../../domain/errors.js";
import { emptyRunResult, type PendingInteraction, type WorkflowRunReport } from "../../domain/workflow/run-report.js";
import type { WorkerRunRequest } from "../../domain/workflow/worker-protocol.js";
import type { RunHandlers, WorkflowWorker } from "../../ports/workflow-workers.js";

/** Options of {@link runInWorker}. */
export interface RunInWorkerOptions {
  projectId: string;
  handlers: RunHandlers;
  /** Aborting cancels the run: the worker is killed at once. */
  signal?: AbortSignal;
  /** Milliseconds before the run is killed with status `timeout`; none when absent or 0. */
  timeoutMs?: number;
}

/**
 * Runs one entrypoint in `worker` and always resolves a run report: success or business
 * failure from the worker, `cancelled` when `signal` aborts, `timeout`, `failed` when the worker
 * dies, `waiting_for_input` when a handler raises `interaction_required`. A cancelled, timed
 * out or paused run's worker is gone when the promise settles; a worker whose run ended by
 * itself stays up, and is {@link WorkflowWorker.reusable} when the run ended cleanly: whoever
 * handed it out decides whether it serves another run or `finish`es (MCP-9).
 *
 * @example
 * const report = await runInWorker(lease.worker, { runId, entrypointId, params, files: {} }, { projectId, handlers });
 */
export async function runInWorker(worker: WorkflowWorker, request: WorkerRunRequest, options: RunInWorkerOptions): Promise<WorkflowRunReport> {
  const base = { runId: request.runId, projectId: options.projectId, entrypointId: request.entrypointId };
  const ended = (status: WorkflowRunReport["status"], code: string, message: string): WorkflowRunReport => ({
    ...base,
    status,
    result: { data: emptyRunResult(message) },
    error: { code, message },
  });
  let stop: ((report: WorkflowRunReport) => void) | undefined;
  const stopped = new Promise<WorkflowRunReport>((resolveStop) => (stop = resolveStop));
  const onAbort = () => stop?.(ended("cancelled", "cancelled", "the run was cancelled"));
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = options.timeoutMs ? setTimeout(() => stop?.(ended("timeout", "timeout", `the run timed out after ${options.timeoutMs} ms`)), options.timeoutMs) : undefined;
  const running = worker.run(request, options.handlers).then(
    (outcome): WorkflowRunReport => (outcome.kind === "report" ? outcome.report : ended("failed", "worker_crashed", `the run failed: ${outcome.message}`)),
    (error): WorkflowRunReport => {
      if (isSteamharnessError(error, "interaction_required")) {
        const pending = error.data?.pending as PendingInteraction;
        return { ...ended("waiting_for_input", "interaction_required", error.message), pending };
      }
      if (isSteamharnessError(error, "cancelled")) return ended("cancelled", "cancelled", error.message);
      return ended("failed", isSteamharnessError(error) ? error.code : "internal", (error as Error)?.message ?? String(error));
    },
  );
  let report: WorkflowRunReport | undefined;
  try {
    report = await Promise.race([running, stopped]);
    return report;
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    // Cancel, timeout and pause (and a failed handler) kill the worker before returning; after a
    // run that ended by itself the worker's fate is its lease holder's (reuse or finish).
    const endedByItself = report !== undefined && (report.status === "success" || report.status === "failed");
    if (!endedByItself) await worker.kill();
  }
}
