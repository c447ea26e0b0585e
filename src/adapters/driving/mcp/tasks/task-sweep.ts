/**
 * The eager takeover of dead owners' tasks (TEN-6): every host with a task store looks, on a
 * jittered timer, for `working` rows whose lease ran out and hands each to the same takeover a
 * `tasks/get` would run, so a task whose owner died is resumed (or failed) without any client
 * polling. Two hosts sweeping at once both try; the store's compare-and-set claim lets one win.
 */
import type { McpTaskRecord, McpTaskStore } from "../../../../ports/mcp-task-store.js";

/** How many lapsed rows one sweep takes on; the rest wait for the next sweep (or another host). */
export const LAPSED_PER_SWEEP = 20;

/** Options of {@link startLapsedTaskSweep}. */
export interface LapsedTaskSweepOptions {
  store: McpTaskStore;
  projectId: string;
  /** The owner lease; a sweep runs every half of it, give or take a quarter (jitter). */
  leaseMs: number;
  now: () => number;
  /** The takeover of one lapsed row (resume or fail it); its failure is that row's alone. */
  takeOver: (row: McpTaskRecord, at: number) => Promise<void>;
  /** Stops the sweep (as `stop()` does). */
  signal?: AbortSignal;
  /** The jitter source (default `Math.random`). */
  random?: () => number;
}

/**
 * The delay before the next sweep: `leaseMs / 2` scaled by 0.75…1.25, so hosts started together
 * drift apart. A dead owner's task is thus taken over within `leaseMs` (its last renewal's lease)
 * plus at most `0.625 × leaseMs` (one sweep delay), plus the time the takeover itself takes.
 *
 * @example
 * sweepDelay(15_000, () => 0.5); // 7500
 */
export function sweepDelay(leaseMs: number, random: () => number = Math.random): number {
  return Math.max(25, Math.round((leaseMs / 2) * (0.75 + random() / 2)));
}

/**
 * Starts the background sweep of one host and returns the function that stops it, resolving
 * once a sweep under way has ended (so no takeover starts a run after its host closed). The
 * timer is unref'd (it never keeps a process alive) and a sweep never overlaps the previous one;
 * store failures are retried at the next sweep.
 *
 * @example
 * const stop = startLapsedTaskSweep({ store, projectId, leaseMs: 15_000, now: Date.now, takeOver });
 * // … on close:
 * await stop();
 */
export function startLapsedTaskSweep(options: LapsedTaskSweepOptions): () => Promise<void> {
  const { store, projectId, leaseMs, now, takeOver, signal } = options;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let current: Promise<void> = Promise.resolve();
  const halt = () => {
    stopped = true;
    clearTimeout(timer);
    signal?.removeEventListener("abort", halt);
  };
  const stop = async () => {
    halt();
    await current;
  };
  const sweep = async () => {
    const at = now();
    const lapsed = await store.listLapsed(projectId, at, LAPSED_PER_SWEEP).catch(() => []);
    for (const row of lapsed) {
      if (stopped) return;
      await takeOver(row, now()).catch(() => undefined);
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void (current = sweep()).finally(schedule), sweepDelay(leaseMs, options.random));
    timer.unref();
  };
  if (signal?.aborted) return stop;
  signal?.addEventListener("abort", halt, { once: true });
  schedule();
  return stop;
}
