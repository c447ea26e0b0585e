import { SteamharnessError } from "../../domain/errors.js";
import type { StructureReport } from "../../domain/workflow/workflow-definition.js";
import { WorkflowWorker, type WorkflowWorkerOptions } from "./worker-process.js";

/** Options of {@link WorkerPool}. */
export interface WorkerPoolOptions {
  /**
   * Warm workers kept ahead of calls, and the most runs at once (`--workers`, MCP-9). 0 is the
   * one-shot mode of the CLI: nothing is started ahead, every lease starts its own worker and
   * there is no limit.
   */
  size: number;
  /**
   * Workers loading at the same time once the first one has loaded; 1 by default. Loading is
   * CPU-bound (node start, module graph, SQLite): one at a time leaves the other cores to the
   * host and to running calls (cancellation and results stay prompt on a busy 2-core machine);
   * a host with spare cores may raise it to supply back-to-back calls faster.
   */
  loadConcurrency?: number;
}

/** One worker handed out for one run; `release` frees its slot (idempotent). */
export interface WorkerLease {
  readonly worker: WorkflowWorker;
  release(): void;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Warm workflow workers (MCP-5, MCP-9): processes that already loaded the project and opened
 * the stores, so a call does not pay for a cold start. Each worker still serves exactly one run.
 * Up to `size` runs hold a lease at once (later callers queue, first come first served) and
 * `size` workers are kept warm besides them: handing out the last warm one starts its
 * replacement at once, any other is replaced when its run ends, so back-to-back calls find a
 * warm worker as long as workers load faster than calls consume them. A warm worker that dies after loading is replaced; one
 * that fails to load is not (a broken project would respawn forever) until a later lease starts
 * a worker that loads again. `close` ends every worker the pool started.
 *
 * @example
 * const pool = new WorkerPool(workerOptions, { size: 2 });
 * pool.start();
 * const lease = await pool.acquire();
 * try { await lease.worker.run(request, handlers) } finally { lease.release() }
 */
export class WorkerPool {
  private readonly idle: WorkflowWorker[] = [];
  private readonly loaded = new WeakSet<WorkflowWorker>();
  private readonly live = new Set<WorkflowWorker>();
  private readonly waiters: Waiter[] = [];
  private readonly loadConcurrency: number;
  private loading = 0;
  private running = 0;
  private loadFailed = false;
  private firstLoaded = false;
  private started = false;
  private closed = false;
  private firstStructure: Promise<StructureReport> | undefined;

  constructor(
    private readonly workerOptions: WorkflowWorkerOptions,
    private readonly options: WorkerPoolOptions,
  ) {
    this.loadConcurrency = Math.max(1, options.loadConcurrency ?? 1);
  }

  /** Starts the warm workers (the first one at once). Idempotent; `acquire` starts them too. */
  start(): void {
    this.started = true;
    this.fill();
  }

  /** Process ids of every worker the pool started that is still running. */
  pids(): number[] {
    return [...this.live].map((worker) => worker.pid).filter((pid): pid is number => pid !== undefined);
  }

  /**
   * The structure report of the first worker to load the project (a worker is started if none
   * is). Rejects with that worker's load error.
   */
  structure(): Promise<StructureReport> {
    this.firstStructure ??= (this.idle[0] ?? this.keepIdle(this.spawn())).ready;
    return this.firstStructure;
  }

  /**
   * Waits for a free slot (at most `size` leases at once; `onQueued` is told when the caller has
   * to wait), then hands out a warm worker — a loaded one first — and starts its replacement.
   * Rejects with `cancelled` when `signal` aborts while waiting or the pool closes.
   */
  async acquire(options: { signal?: AbortSignal; onQueued?: (busy: number) => void } = {}): Promise<WorkerLease> {
    if (this.closed) throw new SteamharnessError("cancelled", "the workflow host is closing");
    this.started = true;
    if (this.options.size > 0 && this.running >= this.options.size) {
      options.onQueued?.(this.running);
      await this.waitForSlot(options.signal);
    } else {
      this.running += 1;
    }
    const worker = this.takeIdle() ?? this.spawn();
    // The replacement starts at once when no loaded worker is left, so the next call does not
    // meet a cold one; while others are still warm it starts when this run ends, so parallel
    // calls do not share the cores (and the host's synchronous fork) with loading workers. The
    // run message goes out before either.
    const warmLeft = this.idle.some((idle) => this.loaded.has(idle));
    if (!warmLeft) setImmediate(() => this.fill());
    let released = false;
    return {
      worker,
      release: () => {
        if (released) return;
        released = true;
        // The slot passes straight to the next waiter, so a newcomer cannot jump the queue.
        const next = this.waiters.shift();
        if (next) next.resolve();
        else this.running -= 1;
        // After the caller has sent its result: a fork blocks the host for a few ms.
        setImmediate(() => this.fill());
      },
    };
  }

  /**
   * Ends every worker: idle ones are killed, ones that finished a run get a short grace to close
   * their stores. Waiting callers are rejected; later `acquire` calls fail.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new SteamharnessError("cancelled", "the workflow host is closing"));
    const idle = new Set(this.idle.splice(0));
    await Promise.all([...this.live].map((worker) => (idle.has(worker) ? worker.kill() : worker.finish(500))));
  }

  private waitForSlot(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolveSlot, reject) => {
      const waiter: Waiter = {
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolveSlot();
        },
        reject,
      };
      const onAbort = () => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(new SteamharnessError("cancelled", "the call was cancelled while waiting for a worker"));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private takeIdle(): WorkflowWorker | undefined {
    const index = this.idle.findIndex((worker) => this.loaded.has(worker));
    return this.idle.splice(index >= 0 ? index : 0, 1)[0];
  }

  private fill(): void {
    const concurrency = this.firstLoaded ? this.loadConcurrency : 1;
    while (this.started && !this.closed && !this.loadFailed && this.idle.length < this.options.size && this.loading < concurrency) {
      this.keepIdle(this.spawn());
    }
  }

  private keepIdle(worker: WorkflowWorker): WorkflowWorker {
    this.idle.push(worker);
    // A warm worker that dies while idle after loading (e.g. killed from outside) is replaced.
    worker.child.once("exit", () => {
      const index = this.idle.indexOf(worker);
      if (index < 0 || !this.loaded.has(worker)) return;
      this.idle.splice(index, 1);
      this.fill();
    });
    return worker;
  }

  private spawn(): WorkflowWorker {
    const worker = new WorkflowWorker(this.workerOptions);
    this.live.add(worker);
    worker.child.once("exit", () => this.live.delete(worker));
    worker.child.once("error", () => this.live.delete(worker));
    this.loading += 1;
    worker.ready.then(
      () => {
        this.loaded.add(worker);
        this.loadFailed = false;
        this.firstLoaded = true;
      },
      () => (this.loadFailed = true),
    ).finally(() => {
      this.loading -= 1;
      this.fill();
    });
    return worker;
  }
}
