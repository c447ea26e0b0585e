import type { StructureReport } from "../domain/workflow/workflow-definition.js";
import type { WorkflowRunReport } from "../domain/workflow/run-report.js";
import type { WorkflowRoot, WorkflowSamplingRequest, WorkflowSamplingResult } from "../domain/workflow/sampling.js";
import type { WorkerInit, WorkerLogEntry, WorkerRunRequest } from "../domain/workflow/worker-protocol.js";
import type { ToolPermissionDecision, ToolPermissionRequest } from "./tool-permissions.js";
import type { UserInputRequest, UserInputResponse } from "./user-input.js";

/**
 * ARCH-7: the isolated processes workflow runs execute in (MCP-5). The workflow-run use case
 * (src/app/workflow-runs) pools and drives them through this port; the driven adapter
 * (src/adapters/driven/worker-process) forks them and speaks the IPC protocol of
 * domain/workflow/worker-protocol.ts.
 */
export interface WorkflowWorkers {
  /**
   * Starts one worker: it begins loading the project at once ({@link WorkflowWorker.ready}).
   * Never throws for a worker that fails to start: `ready` rejects and `exited` resolves.
   */
  start(options: WorkflowWorkerOptions): WorkflowWorker;
}

/** What {@link WorkflowWorkers.start} needs. */
export interface WorkflowWorkerOptions<Config extends WorkerInit = WorkerInit> {
  /** Sent to the worker as is (the `init` message); its `projectDir` is the worker's working directory. */
  config: Config;
  env: Record<string, string>;
  /** Where the worker's stdout and stderr go; the host's stderr by default, never its stdout. */
  output?: NodeJS.WritableStream;
}

/** What a host answers a paused run with. Throwing ends the run (the worker is killed). */
export interface RunHandlers {
  onInput(request: UserInputRequest): Promise<UserInputResponse>;
  onApproval(request: ToolPermissionRequest): Promise<ToolPermissionDecision>;
  /** Told each entry of the run's `context.log` (it is on the worker's stderr too). */
  onLog?(entry: WorkerLogEntry): void;
  /**
   * Answers the run's `context.sampling.createMessage` (an MCP call's client, workflow-sampling.ts).
   * Absent, every request is `sampling_unavailable`. Unlike the other handlers, a rejection does
   * not end the run: its typed error reaches the workflow, which may catch it — except
   * `interaction_required`, which pauses the run as from `onInput` (MCP-19). `signal` aborts
   * when the run abandons the request or ends (report, exit, kill).
   */
  onSampling?(request: WorkflowSamplingRequest, signal: AbortSignal): Promise<WorkflowSamplingResult>;
  /** MCP-19: answers the run's `context.roots.list` (the calling MCP client's roots), as `onSampling` does; absent, `unavailable`. */
  onRoots?(signal: AbortSignal): Promise<WorkflowRoot[]>;
}

/**
 * How a worker run ended from the host's point of view: its report (which carries the worker's
 * verdict on reuse, {@link WorkflowWorker.reusable}), or the worker's exit.
 */
export type WorkerRunOutcome = { kind: "report"; report: WorkflowRunReport } | { kind: "exited"; message: string };

/**
 * One worker process: it serves one run at a time, and another after a run only when that run
 * ended cleanly ({@link reusable}, MCP-9).
 */
export interface WorkflowWorker {
  /** Resolves the project's structure report once loaded; rejects with the load error (or the exit). */
  readonly ready: Promise<StructureReport>;
  /** Resolves (never rejects) with why the worker is gone: its exit, its kill or a failed start. */
  readonly exited: Promise<string>;
  /** The worker's process id (undefined if it failed to spawn). */
  readonly pid: number | undefined;
  /** Runs started in this worker. */
  readonly runCount: number;
  /** Resolves once the last run's report, with its verdict on reuse, is in (or the worker exited); resolved when no run was made. */
  readonly settled: Promise<void>;
  /** True while alive, loaded, not running, and its last run (if any) left it fit for another. */
  readonly reusable: boolean;
  /**
   * Runs one entrypoint and resolves how it ended as soon as the report arrives. Input and
   * approval requests go to `handlers`; if a handler throws, the worker is killed and the promise
   * rejects with it. Rejects with `internal` when the worker is not {@link reusable}.
   */
  run(request: WorkerRunRequest, handlers: RunHandlers): Promise<WorkerRunOutcome>;
  /** Asks the worker to close its stores and exit, waits up to `graceMs`, then kills it. Resolves when it is gone. */
  finish(graceMs?: number): Promise<void>;
  /** Kills the worker at once; resolves when it is gone. Idempotent. */
  kill(): Promise<void>;
}
