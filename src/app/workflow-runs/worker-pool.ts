import { SteamharnessError, isSteamharnessError } from "../../domain/errors.js";
import { createFairQueue, type FairQueue, type FairQueueSlot } from "../../domain/fair-queue.js";
import type { StructureReport } from "../../domain/workflow/workflow-definition.js";
import type { WorkflowWorker, WorkflowWorkerOptions, WorkflowWorkers } from "../../ports/workflow-workers.js";
import type { WorkerConfig } from "./worker-config.js";

/** Options of {@link WorkerPool}. */
export interface WorkerPoolOptions {
  /** Where the workers come from (ARCH-7: forked processes, wired by the composition root). */
  workers: WorkflowWorkers;
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
  /**
   * Hand a worker whose run ended cleanly ({@link WorkflowWorker.reusable}) the next run (MCP-9,
   * the default when `size` > 0). `false`: every worker serves exactly one run and is replaced
   * (`--fresh-worker`). Ignored in the one-shot mode (`size` 0).
   */
  reuse?: boolean;
  /** A reused worker is retired after this many runs ({@link DEFAULT_MAX_RUNS_PER_WORKER}). */
  maxRunsPerWorker?: number;
  /**
   * BUD-5: the most leases one tenant holds at once (`--tenant-concurrency`); none by default.
   * Whatever it is, waiting callers are served round-robin across tenants (first come first
   * served within a tenant), so one tenant with a long queue does not hold back another's call.
   */
  tenantConcurrency?: number;
}

/** The tenant of an `acquire` that names none: every caller of a single-tenant host (stdio, the CLI). */
export const DEFAULT_TENANT = "default";

/** Runs a reused worker serves before it is retired (bounds what a slow leak can accumulate). */
export const DEFAULT_MAX_RUNS_PER_WORKER = 1000;

/**
 * One worker handed out for one run; `release` (idempotent) gives the worker back to the pool,
 * which reuses it or retires it, and frees its slot — once the worker's verdict on its run is in
 * ({@link WorkflowWorker.settled}: the report that ends the run carries it, or the worker exited).
 */
export interface WorkerLease {
  readonly worker: WorkflowWorker;
  release(): void;
}

/**
 * Warm workflow workers (MCP-5, MCP-9): processes that already loaded the project and opened
 * the stores, so a call does not pay for a cold start. Up to `size` runs hold a lease at once;
 * later callers queue per tenant (BUD-5, {@link createFairQueue}): free slots go round-robin
 * across the waiting tenants, first come first served within one, each tenant holding at most
 * `tenantConcurrency` — with one tenant that is one FIFO, as before tenants existed.
 *
 * With `reuse` (the default), the pool holds `size` workers in all: a worker whose run ended
 * cleanly goes back to the idle list and serves a later run (the most recently used first, its
 * code is the warmest); a worker whose run was cancelled, timed out, crashed, threw or left work
 * running is retired (its stores closed, then killed after a grace) and replaced at once, and
 * so is a worker past `maxRunsPerWorker` runs or loaded before {@link renew}.
 *
 * Without `reuse`, each worker serves exactly one run and `size` workers are kept warm besides
 * the running ones: handing out the last warm one starts its replacement at once, any other is
 * replaced when its run ends.
 *
 * A warm worker that dies while idle is replaced; one that fails to load is not (a broken
 * project would respawn forever) until a later lease starts a worker that loads again. `close`
 * ends every worker the pool started.
 *
 * @example
 * const pool = new WorkerPool(workerOptions, { size: 2 });
 * pool.start();
 * const lease = await pool.acquire({ tenant: "acme" });
 * try { await lease.worker.run(request, handlers) } finally { lease.release() }
 */
export class WorkerPool {
  private readonly idle: WorkflowWorker[] = [];
  private readonly loaded = new WeakSet<WorkflowWorker>();
  private readonly live = new Set<WorkflowWorker>();
  private readonly slots: FairQueue;
  private readonly loadConcurrency: number;
  private readonly reuse: boolean;
  private readonly maxRuns: number;
  /** Bumped by `renew`: workers of an older generation serve no further run. */
  private generation = 0;
  private readonly generationOf = new WeakMap<WorkflowWorker, number>();
  /** Workers the pool ended on purpose: one of them exiting while loading is no load failure. */
  private readonly retired = new WeakSet<WorkflowWorker>();
  private loading = 0;
  private loadFailed = false;
  private firstLoaded = false;
  private started = false;
  private closed = false;
  private firstStructure: Promise<StructureReport> | undefined;

  constructor(
    private readonly workerOptions: WorkflowWorkerOptions<WorkerConfig>,
    private readonly options: WorkerPoolOptions,
  ) {
    this.loadConcurrency = Math.max(1, options.loadConcurrency ?? 1);
    this.reuse = options.size > 0 && options.reuse !== false;
    this.maxRuns = Math.max(1, options.maxRunsPerWorker ?? DEFAULT_MAX_RUNS_PER_WORKER);
    // The one-shot mode (`size` 0) has no overall limit; a tenant cap still applies there.
    this.slots = createFairQueue({ capacity: options.size > 0 ? options.size : Infinity, ...(options.tenantConcurrency !== undefined ? { tenantCapacity: options.tenantConcurrency } : {}) });
  }

  /** Leases out now (runs in progress). */
  private get running(): number {
    return this.slots.state().running;
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
   * is; one retired while loading passes the task on). Rejects with that worker's load error.
   */
  structure(): Promise<StructureReport> {
    this.firstStructure ??= this.loadStructure();
    return this.firstStructure;
  }

  private async loadStructure(): Promise<StructureReport> {
    for (;;) {
      const worker = this.idle[0] ?? this.keepIdle(this.spawn());
      try {
        return await worker.ready;
      } catch (error) {
        // Retired while loading (the project was edited): the structure comes from its successor.
        if (this.closed || !this.retired.has(worker)) throw error;
      }
    }
  }

  /**
   * Retires every worker loaded so far (the project changed): idle ones at once, running ones
   * when their run ends; fresh workers take their places.
   */
  renew(): void {
    this.generation += 1;
    const stale = this.idle.splice(0);
    for (const worker of stale) this.retire(worker);
    if (stale.length > 0) this.fill();
  }

  /**
   * Waits for a free slot of `tenant` ({@link DEFAULT_TENANT} when none is named): at most `size`
   * leases at once and `tenantConcurrency` per tenant, waiting tenants served in turn (`onQueued`
   * is told, with the runs in progress, when the caller has to wait). Then hands out a warm
   * worker — a loaded one first (with reuse, the most recently used) — and, without reuse,
   * starts its replacement. Rejects with `cancelled` when `signal` aborts while waiting or the
   * pool closes.
   */
  async acquire(options: { tenant?: string; signal?: AbortSignal; onQueued?: (busy: number) => void } = {}): Promise<WorkerLease> {
    if (this.closed) throw new SteamharnessError("cancelled", "the workflow host is closing");
    this.started = true;
    const { signal, onQueued } = options;
    let slot;
    try {
      slot = await this.slots.acquire(options.tenant ?? DEFAULT_TENANT, { ...(signal ? { signal } : {}), ...(onQueued ? { onQueued: (state) => onQueued(state.running) } : {}) });
    } catch (error) {
      if (isSteamharnessError(error, "cancelled") && signal?.aborted) throw new SteamharnessError("cancelled", "the call was cancelled while waiting for a worker", { cause: error });
      throw error;
    }
    return this.leaseOf(slot);
  }

  /**
   * The lease {@link acquire} would give at once, synchronously — so a call's run message goes
   * out before the event loop turns — or `undefined` when the caller would wait (or the pool is
   * closing): the caller then goes on with `acquire`, which queues it or says why not.
   */
  acquireNow(tenant: string = DEFAULT_TENANT): WorkerLease | undefined {
    if (this.closed) return undefined;
    let slot;
    try {
      slot = this.slots.tryAcquire(tenant);
    } catch {
      return undefined;
    }
    if (!slot) return undefined;
    this.started = true;
    return this.leaseOf(slot);
  }

  /** A worker for a granted slot, handed out as a lease. */
  private leaseOf(slot: FairQueueSlot): WorkerLease {
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
        // The slot and the worker come back once the worker's verdict on its run is in (a lease
        // released before its run ended waits for the report or the exit), so no run is handed a
        // worker that is still busy. The
        // tenant's share comes back at once: its call is over, so its next call may take another
        // free worker meanwhile (BUD-5: a tenant's cap counts its calls, not others' cleanups).
        slot.releaseTenant();
        void worker.settled.then(() => this.giveBack(worker, slot));
      },
    };
  }

  /** A released worker back in the idle list (reused) or retired, and its slot passed on. */
  private giveBack(worker: WorkflowWorker, slot: { release(): void }): void {
    const keep = this.reuse && !this.closed && worker.reusable && worker.runCount < this.maxRuns && this.generationOf.get(worker) === this.generation;
    // Back in the idle list before the slot moves on, so the next waiter takes this worker.
    if (keep) this.idle.push(worker);
    else this.retire(worker);
    // The slot passes straight to the next waiter in turn, so a newcomer cannot jump the queue.
    slot.release();
    // After the caller has sent its result: a fork blocks the host for a few ms.
    if (!keep) setImmediate(() => this.fill());
  }

  /**
   * Ends every worker: ones still loading are killed, the others close their stores (a running
   * one after its run) within a short grace, then are killed. Waiting callers are rejected;
   * later `acquire` calls fail.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.slots.close(new SteamharnessError("cancelled", "the workflow host is closing"));
    this.idle.splice(0);
    await Promise.all([...this.live].map((worker) => (this.loaded.has(worker) ? worker.finish(500) : worker.kill())));
  }

  private retire(worker: WorkflowWorker): void {
    this.retired.add(worker);
    void worker.finish();
  }

  /** The last loaded idle worker (the most recently returned), else the oldest loading one. */
  private takeIdle(): WorkflowWorker | undefined {
    let index = this.idle.length - 1;
    while (index >= 0 && !this.loaded.has(this.idle[index]!)) index -= 1;
    return this.idle.splice(index >= 0 ? index : 0, 1)[0];
  }

  private fill(): void {
    const concurrency = this.firstLoaded ? this.loadConcurrency : 1;
    // With reuse the workers out on a run come back, so they count towards `size`.
    const wanted = () => this.idle.length + (this.reuse ? this.running : 0) < this.options.size;
    while (this.started && !this.closed && !this.loadFailed && wanted() && this.loading < concurrency) {
      this.keepIdle(this.spawn());
    }
  }

  private keepIdle(worker: WorkflowWorker): WorkflowWorker {
    this.idle.push(worker);
    return worker;
  }

  private spawn(): WorkflowWorker {
    const worker = this.options.workers.start(this.workerOptions);
    this.live.add(worker);
    this.generationOf.set(worker, this.generation);
    void worker.exited.then(() => {
      this.live.delete(worker);
      // A warm worker that dies while idle after loading (e.g. killed from outside) is replaced.
      const index = this.idle.indexOf(worker);
      if (index < 0 || !this.loaded.has(worker)) return;
      this.idle.splice(index, 1);
      this.fill();
    });
    this.loading += 1;
    worker.ready.then(
      () => {
        this.loaded.add(worker);
        this.loadFailed = false;
        this.firstLoaded = true;
      },
      () => {
        if (!this.retired.has(worker)) this.loadFailed = true;
      },
    ).finally(() => {
      this.loading -= 1;
      this.fill();
    });
    return worker;
  }
}
