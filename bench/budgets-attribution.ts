/**
 * Where the slow calls of bench/budgets.bench.ts spend their time (BUD-1 speed), measured in extra
 * passes beside the defined figures, never inside them:
 * - `spinFloor`: a fixed slice of CPU work timed like a ledger call — the p99 this machine's
 *   scheduler gives any call of that length at the current load.
 * - `attributeSlowCalls`: the same reserve + settle again, with the main thread's run-queue wait
 *   (Linux /proc/<pid>/task/<pid>/schedstat) and the GC pauses overlapping each call recorded;
 *   for the slowest 1 % of calls, how much of their wall time was waiting for a CPU, in GC, or
 *   else (SQLite's own work, blocked I/O).
 */
import { readFileSync } from "node:fs";
import { PerformanceObserver } from "node:perf_hooks";

const round = (value: number, digits = 3): number => Number(value.toFixed(digits));
const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

/**
 * p50/p99 of `calls` spins of `cpuMs` each (plus one resolved await, like a ledger call).
 *
 * @example
 * const floor = await spinFloor(0.25, 2000);
 */
export async function spinFloor(cpuMs: number, calls: number): Promise<{ cpuMs: number; p50: number; p99: number }> {
  const times: number[] = [];
  let sink = 0;
  for (let i = 0; i < calls + 200; i++) {
    const started = performance.now();
    while (performance.now() - started < cpuMs) sink++;
    await Promise.resolve(sink);
    if (i >= 200) times.push(performance.now() - started);
  }
  return { cpuMs, p50: round(percentile(times, 0.5)), p99: round(percentile(times, 0.99)) };
}

const runQueueWaitMs = (): number | null => {
  try {
    return Number(readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, "utf8").split(" ")[1]) / 1e6;
  } catch {
    return null;
  }
};

/** What the slowest 1 % of calls spent their wall time on (ms, summed over those calls). */
export interface SlowCallShare {
  calls: number;
  slowCalls: number;
  wallMs: number;
  runQueueWaitMs: number | null;
  gcMs: number;
  otherMs: number | null;
  gcPausesPer1000Calls: number;
}

/**
 * Runs `call(i)` `calls` times after `warmup` and attributes the slowest 1 %.
 *
 * @example
 * const share = await attributeSlowCalls((i) => reserveAndSettle(ledger, i), 2000, 200);
 */
export async function attributeSlowCalls(call: (i: number) => Promise<void>, calls: number, warmup: number): Promise<SlowCallShare> {
  const pauses: Array<{ start: number; end: number }> = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ start: entry.startTime, end: entry.startTime + entry.duration });
  });
  observer.observe({ entryTypes: ["gc"] });
  const records: Array<{ start: number; end: number; wait: number | null }> = [];
  for (let i = 0; i < warmup + calls; i++) {
    const waitBefore = runQueueWaitMs();
    const start = performance.now();
    await call(i);
    const end = performance.now();
    const waitAfter = runQueueWaitMs();
    if (i >= warmup) records.push({ start, end, wait: waitBefore === null || waitAfter === null ? null : waitAfter - waitBefore });
  }
  // GC entries are delivered asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  const slow = [...records].sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, Math.max(1, Math.floor(calls / 100)));
  const overlap = (r: { start: number; end: number }) => pauses.reduce((sum, p) => sum + Math.max(0, Math.min(r.end, p.end) - Math.max(r.start, p.start)), 0);
  const wallMs = slow.reduce((sum, r) => sum + r.end - r.start, 0);
  const gcMs = slow.reduce((sum, r) => sum + overlap(r), 0);
  const waits = slow.every((r) => r.wait !== null) ? slow.reduce((sum, r) => sum + r.wait!, 0) : null;
  const first = records[0]!.start;
  return {
    calls,
    slowCalls: slow.length,
    wallMs: round(wallMs, 1),
    runQueueWaitMs: waits === null ? null : round(waits, 1),
    gcMs: round(gcMs, 1),
    otherMs: waits === null ? null : round(Math.max(0, wallMs - waits - gcMs), 1),
    gcPausesPer1000Calls: round((pauses.filter((p) => p.start >= first).length * 1000) / calls, 1),
  };
}
