import { WorkflowWorker, type WorkflowWorkerOptions } from "./worker-process.js";

/**
 * Keeps warm workers: processes that already loaded the project (and opened the stores), so a
 * call does not pay for process start and module loading. Each worker still serves exactly one
 * run; taking one starts its replacement in the background. The first `peek` or `take` starts
 * the pool.
 *
 * @example
 * const pool = new WorkerPool(options, 1);
 * const structure = await pool.peek().ready;
 * const worker = pool.take();
 */
export class WorkerPool {
  private readonly idle: WorkflowWorker[] = [];
  private closed = false;

  constructor(
    private readonly options: WorkflowWorkerOptions,
    private readonly size = 1,
  ) {}

  private fill(): void {
    while (!this.closed && this.idle.length < this.size) {
      const worker = new WorkflowWorker(this.options);
      let loaded = false;
      worker.ready.then(() => (loaded = true), () => undefined);
      // A warm worker that dies while idle after loading (e.g. killed from outside) is replaced;
      // one that failed to load is not, or a broken project would respawn forever.
      worker.child.once("exit", () => {
        const index = this.idle.indexOf(worker);
        if (index >= 0 && loaded) {
          this.idle.splice(index, 1);
          setTimeout(() => this.fill(), 100).unref();
        }
      });
      this.idle.push(worker);
    }
  }

  /** The next warm worker, without taking it (its `ready` gives the structure report). */
  peek(): WorkflowWorker {
    if (this.idle.length === 0) this.fill();
    // With size 0 (one-shot CLI runs) the peeked worker is kept for the next `take`.
    if (this.idle.length === 0) this.idle.push(new WorkflowWorker(this.options));
    return this.idle[0]!;
  }

  /** Takes a warm worker for one run and starts its replacement. */
  take(): WorkflowWorker {
    const worker = this.idle.shift() ?? new WorkflowWorker(this.options);
    setImmediate(() => this.fill());
    return worker;
  }

  /** Kills the idle workers; later `take` calls still start fresh ones. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((worker) => worker.kill()));
  }
}
