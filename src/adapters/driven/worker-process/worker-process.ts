import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isSteamharnessError, SteamharnessError } from "../../../domain/errors.js";
import type { StructureReport } from "../../../domain/workflow/workflow-definition.js";
import type { WorkflowRoot, WorkflowSamplingResult } from "../../../domain/workflow/sampling.js";
import { isProtocolMessage, type ParentMessage, type WorkerMessage, type WorkerRunRequest, type WorkerSamplingError } from "../../../domain/workflow/worker-protocol.js";
import type { RunHandlers, WorkerRunOutcome, WorkflowWorker as WorkflowWorkerPort, WorkflowWorkerOptions, WorkflowWorkers } from "../../../ports/workflow-workers.js";

/** The worker script and the node flags to start it with. */
export interface WorkerEntry {
  path: string;
  execArgv: string[];
}

/**
 * The worker script beside `moduleUrl` (a module of the folder that holds the worker's main, the
 * composition root's `workflow-worker.ts`), and the node flags to start it with. From the sources
 * (tests, `tsx`) it is `workflow-worker.ts` under tsx; from the build it is `workflow-worker.js`
 * next to the bundle (tsup emits both into dist/).
 *
 * @example
 * const { path, execArgv } = resolveWorkerEntry(import.meta.url);
 */
export function resolveWorkerEntry(moduleUrl: string): WorkerEntry {
  const here = fileURLToPath(moduleUrl);
  if (here.endsWith(".ts")) {
    // An absolute loader URL: `--import tsx` would resolve against the child's cwd.
    return { path: join(dirname(here), "workflow-worker.ts"), execArgv: ["--import", import.meta.resolve("tsx")] };
  }
  const path = join(dirname(here), "workflow-worker.js");
  if (!existsSync(path)) throw new SteamharnessError("internal", `workflow worker script missing: ${path}`);
  return { path, execArgv: [] };
}

/**
 * The {@link WorkflowWorkers} port over forked node processes running `entry` (ARCH-7).
 *
 * @example
 * const workers = createWorkflowWorkers(resolveWorkerEntry(import.meta.url));
 * const worker = workers.start({ config, env });
 */
export function createWorkflowWorkers(entry: WorkerEntry): WorkflowWorkers {
  return { start: (options) => new WorkflowWorker({ ...options, entry }) };
}

/** What a run that asks for sampling without a handler is told. */
const SAMPLING_UNAVAILABLE_MESSAGE =
  "sampling is unavailable: only a run called by an MCP client that declared the sampling capability can ask its model (not `steamharness run` or `answer`, nor an MCP task)";
/** What a run that asks for roots without a handler is told. */
const ROOTS_UNAVAILABLE_MESSAGE = "roots are unavailable: only a run called by an MCP client that declared the roots capability can list its roots (not `steamharness run` or `answer`, nor an MCP task)";

function samplingErrorOf(error: unknown): WorkerSamplingError {
  if (isSteamharnessError(error)) return { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) };
  return { code: "sampling_failed", message: `the sampling request failed: ${(error as Error)?.message ?? String(error)}` };
}

/**
 * One isolated worker process (MCP-5): it starts loading the project at once, so a pool can keep
 * it warm; `ready` resolves the structure report or rejects with the load error. It serves one
 * run at a time, and another after a run only when that run ended cleanly ({@link reusable},
 * MCP-9); `finish` asks it to close its stores and exit.
 *
 * @example
 * const worker = new WorkflowWorker({ config, env: process.env as Record<string, string>, entry: resolveWorkerEntry(import.meta.url) });
 * const structure = await worker.ready;
 * const outcome = await worker.run(request, handlers);
 */
export class WorkflowWorker implements WorkflowWorkerPort {
  readonly child: ChildProcess;
  readonly ready: Promise<StructureReport>;
  /** Why the worker is gone (its exit, its kill, a failed start); never rejects. */
  readonly exited: Promise<string>;
  private listener: ((message: WorkerMessage) => void) | undefined;
  private onExit: ((why: string) => void) | undefined;
  private runs = 0;
  private clean = true;
  /** Set when `ready` resolves (in the same turn, unlike a `then` on it). */
  private loadedNow = false;
  private verdict: Promise<void> = Promise.resolve();

  constructor(options: WorkflowWorkerOptions & { entry: WorkerEntry }) {
    const entry = options.entry;
    this.child = fork(entry.path, [], {
      execArgv: entry.execArgv,
      env: options.env,
      cwd: options.config.projectDir,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      // JSON, not "advanced" (structured clone): every message of the protocol is JSON (a run's
      // output is checked to be, WF-1), and a JSON message costs less to encode and decode on
      // both sides of each call's two hops than V8's serializer (MCP-9).
      serialization: "json",
    });
    const output = options.output ?? process.stderr;
    // Each pipe into `output` adds one of its unpipe, error, close and finish listeners until the
    // worker's streams close: a host with more than five workers alive would pass Node's default
    // limit of ten and print a leak warning for what is no leak. The limit grows by this worker's two.
    const limited = output.getMaxListeners() !== 0;
    if (limited) output.setMaxListeners(output.getMaxListeners() + 2);
    this.child.once("close", () => limited && output.setMaxListeners(Math.max(1, output.getMaxListeners() - 2)));
    this.child.stdout?.pipe(output, { end: false });
    this.child.stderr?.pipe(output, { end: false });
    this.exited = new Promise((resolveExit) => {
      this.child.once("exit", (code, signal) => resolveExit(signal ? `the worker was killed by ${signal}` : `the worker exited with code ${code}`));
      // `on`, not `once`: a send to a worker that just exited fails with EPIPE as a later `error`
      // event, which must not become an unhandled error that ends the host process.
      this.child.on("error", (error) => resolveExit(`the worker failed to start: ${error.message}`));
    });
    void this.exited.then((why) => {
      this.clean = false;
      this.onExit?.(why);
    });
    this.child.on("message", (raw: unknown) => {
      if (isProtocolMessage(raw)) this.listener?.(raw as WorkerMessage);
    });
    this.ready = new Promise<StructureReport>((resolveReady, reject) => {
      this.listener = (message) => {
        if (message.type === "ready") {
          this.loadedNow = true;
          resolveReady(message.structure);
        } else if (message.type === "load-error") reject(new SteamharnessError(message.error.code as never, message.error.message));
      };
      void this.exited.then((why) => reject(new SteamharnessError("internal", `cannot load the workflow project: ${why}`)));
    });
    this.ready.catch(() => undefined);
    this.send({ type: "init", config: options.config });
  }

  /** The worker's process id (undefined if it failed to spawn). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Runs started in this worker. */
  get runCount(): number {
    return this.runs;
  }

  /**
   * Resolves once the last run's verdict is in: the worker cleans up after a run, then sends its
   * report with the verdict ({@link reusable}) — or it exited. Resolved when no run was made.
   */
  get settled(): Promise<void> {
    return this.verdict;
  }

  /**
   * True while the worker is alive, loaded, not running, and its last run (if any) ended with
   * the worker's own `reusable` verdict; false after a kill, an exit or `finish`, and while a
   * run is in progress.
   */
  get reusable(): boolean {
    return this.clean && this.child.exitCode === null && this.child.signalCode === null && this.child.connected;
  }

  private send(message: ParentMessage): void {
    // A worker that exits while a message is on its way makes the send fail (EPIPE); the exit is
    // reported through `exited`, so the failed send itself is dropped here.
    if (this.child.connected) this.child.send(message, undefined, {}, () => undefined);
  }

  /**
   * Runs one entrypoint and resolves how it ended, as soon as the report (with the verdict on
   * reuse, see {@link settled}) arrives. Input and approval requests go to `handlers` (the
   * worker sends none for a run that has ended); if a handler throws, the worker is killed and
   * the promise rejects with it. Sampling requests go to `handlers.onSampling`, whose answer or
   * typed error goes back to the run; those still open when the run ends are aborted. Rejects with `internal` when the worker is not
   * {@link reusable} (one run at a time, never after an unclean one).
   */
  async run(request: WorkerRunRequest, handlers: RunHandlers): Promise<WorkerRunOutcome> {
    // A loaded worker gets the run message in this same turn (no await), so it starts at once.
    if (!this.loadedNow) await this.ready;
    if (!this.reusable) throw new SteamharnessError("internal", "this workflow worker cannot take another run");
    this.runs += 1;
    this.clean = false;
    let judged: () => void = () => undefined;
    this.verdict = new Promise<void>((resolveVerdict) => (judged = resolveVerdict));
    return new Promise<WorkerRunOutcome>((resolveRun, reject) => {
      let settled = false;
      // The run's sampling requests in flight: each is abandoned once the run has ended.
      const sampling = new Map<string, AbortController>();
      const abandonSampling = () => {
        for (const controller of sampling.values()) controller.abort();
        sampling.clear();
      };
      const settle = (fn: () => void) => {
        if (!settled) {
          settled = true;
          abandonSampling();
          fn();
        }
      };
      const end = () => {
        this.listener = undefined;
        this.onExit = undefined;
        abandonSampling();
        judged();
      };
      // A request of the run to the calling client (sampling, roots): `ask` answers it, `answer` sends the outcome back.
      const askClient = <T>(requestId: string, ask: ((signal: AbortSignal) => Promise<T>) | undefined, unavailable: WorkerSamplingError, answer: (response: { result: T } | { error: WorkerSamplingError }) => void) => {
        if (!ask) return answer({ error: unavailable });
        const controller = new AbortController();
        sampling.set(requestId, controller);
        // Answered only while the request is still open (not abandoned, not answered already).
        Promise.resolve()
          .then(() => ask(controller.signal))
          .then(
            (result) => sampling.delete(requestId) && answer({ result }),
            (error) => {
              // MCP-19: a 2026-07-28 round pauses the run on a sampling request, as on a form.
              if (isSteamharnessError(error, "interaction_required")) return settle(() => (end(), this.kill(), reject(error)));
              return sampling.delete(requestId) && answer({ error: samplingErrorOf(error) });
            },
          );
      };
      this.listener = (message) => {
        if (message.type === "report") {
          if (message.report.runId !== request.runId) return;
          // The report carries the worker's verdict on reuse (MCP-9): the run is over on both sides.
          this.clean = message.reusable;
          end();
          settle(() => resolveRun({ kind: "report", report: message.report }));
        } else if (settled) {
          // The run has ended (a handler failed): nothing more reaches its handlers.
        } else if (message.type === "log") {
          const { type: _type, ...entry } = message;
          handlers.onLog?.(entry);
        } else if (message.type === "input-request") {
          handlers.onInput(message.request).then(
            (response) => this.send({ type: "input-response", requestId: message.request.requestId, response }),
            (error) => settle(() => (end(), this.kill(), reject(error))),
          );
        } else if (message.type === "approval-request") {
          handlers.onApproval(message.request).then(
            (decision) => this.send({ type: "approval-response", requestId: message.request.requestId, decision }),
            (error) => settle(() => (end(), this.kill(), reject(error))),
          );
        } else if (message.type === "sampling-request") {
          const { requestId, request: samplingRequest } = message;
          const onSampling = handlers.onSampling?.bind(handlers);
          askClient<WorkflowSamplingResult>(requestId, onSampling && ((signal) => onSampling(samplingRequest, signal)), { code: "sampling_unavailable", message: SAMPLING_UNAVAILABLE_MESSAGE }, (response) => this.send({ type: "sampling-response", requestId, ...response }));
        } else if (message.type === "roots-request") {
          const { requestId } = message;
          const onRoots = handlers.onRoots?.bind(handlers);
          const answer = (response: { result: WorkflowRoot[] } | { error: WorkerSamplingError }) => this.send("result" in response ? { type: "roots-response", requestId, roots: response.result } : { type: "roots-response", requestId, error: response.error });
          askClient<WorkflowRoot[]>(requestId, onRoots, { code: "unavailable", message: ROOTS_UNAVAILABLE_MESSAGE }, answer);
        } else if (message.type === "sampling-cancel") {
          sampling.get(message.requestId)?.abort();
          sampling.delete(message.requestId);
        }
      };
      this.onExit = (why) => {
        end();
        settle(() => resolveRun({ kind: "exited", message: why }));
      };
      this.send({ type: "run", run: handlers.onLog ? { ...request, forwardLogs: true } : request });
    });
  }

  /**
   * Asks the worker to close its stores and exit, waits up to `graceMs` for it, then kills it.
   * Resolves when it is gone. Only for a worker that is not running (a running one is killed).
   */
  async finish(graceMs = 1000): Promise<void> {
    this.clean = false;
    this.send({ type: "exit" });
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolveGrace) => (timer = setTimeout(resolveGrace, graceMs)));
    await Promise.race([this.exited, grace]);
    clearTimeout(timer);
    await this.kill();
  }

  /** Kills the worker at once (SIGKILL); resolves when it is gone. Idempotent. */
  async kill(): Promise<void> {
    this.clean = false;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    await this.exited;
  }
}
