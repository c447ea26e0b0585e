// Run retention benchmark (SES-12). Run:
//   npm run bench -- run-retention        (or: node --import tsx bench/run-retention.bench.ts)
// What one workflow run adds to its host for keeping its agent sessions: the index marks it
// `running` as it starts and `finished` as it ends, then looks for due runs (a batch of 16) —
// measured with 1 000 and with 100 000 runs already in the index (none due), so the figure shows
// whether the bookkeeping grows with the history (target: ≤ 1.5× from 1 000 to 100 000 rows).
// Also the cost of removing due runs' sessions, per run (a session file and its lock in each
// folder). CPU time (process.cpuUsage) beside wall time: the machine is shared. Results go to
// bench/results/run-retention.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createSqliteRunRetention } from "../src/adapters/driven/sqlite/run-retention/sqlite-run-retention.js";
import { conversationSessionsDirectory } from "../src/adapters/driven/sqlite/sessions/session-database-path.js";

const RUNS = 2000;
const TARGET = 1.5;
const DAY = 86_400_000;
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** µs of wall and CPU per run of the per-run bookkeeping, over `history` rows already retained. */
async function perRun(history: number): Promise<{ history: number; wallUs: number; cpuUs: number }> {
  const dir = mkdtempSync(join(tmpdir(), "sh-bench-retention-"));
  try {
    const retention = await createSqliteRunRetention({ agentStoreDir: dir });
    const now = Date.now();
    for (let i = 0; i < history; i++) retention.mark({ projectId: "p", runId: `old-${i}`, state: "finished", at: now, expiresAt: now + 7 * DAY });
    for (let i = 0; i < 200; i++) await retention.prune({ projectId: "p", now, limit: 16 }); // warm-up, not counted
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < RUNS; i++) {
      const runId = `run-${i}`;
      retention.mark({ projectId: "p", runId, state: "running", at: now, expiresAt: now + 7 * DAY });
      retention.mark({ projectId: "p", runId, state: "finished", at: now, expiresAt: now + 7 * DAY });
      await retention.prune({ projectId: "p", now, limit: 16 });
    }
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    retention.close();
    return { history, wallUs: round((wall * 1000) / RUNS), cpuUs: round((used.user + used.system) / RUNS) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** µs of wall and CPU per removed run (one session file and its lock file in its folder). */
async function removal(count: number): Promise<{ runs: number; wallUs: number; cpuUs: number }> {
  const dir = mkdtempSync(join(tmpdir(), "sh-bench-retention-"));
  try {
    const retention = await createSqliteRunRetention({ agentStoreDir: dir });
    for (let i = 0; i < count; i++) {
      const folder = conversationSessionsDirectory({ agentStoreDir: dir, conversationId: `due-${i}` });
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "agent-0000000000000000.sqlite"), "");
      retention.mark({ projectId: "p", runId: `due-${i}`, state: "finished", at: 1, expiresAt: 2 });
    }
    const cpu = process.cpuUsage();
    const started = performance.now();
    let removed = 0;
    for (;;) {
      const batch = await retention.prune({ projectId: "p", now: 10, limit: 16 });
      removed += batch.removed.length;
      if (!batch.more) break;
    }
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    retention.close();
    if (removed !== count) throw new Error(`removed ${removed} of ${count}`);
    return { runs: count, wallUs: round((wall * 1000) / count), cpuUs: round((used.user + used.system) / count) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const small = await perRun(1000);
  const large = await perRun(100_000);
  const removing = await removal(500);
  const ratio = round(large.cpuUs / small.cpuUs, 2);
  const result = {
    benchmark: "run-retention",
    node: process.version,
    load: { before: round(loadBefore!, 2), after: round(loadavg()[0]!, 2) },
    perRun: { history1000: small, history100000: large, cpuRatio: ratio, target: TARGET, withinTarget: ratio <= TARGET },
    removalPerRun: removing,
  };
  mkdirSync(join(import.meta.dirname, "results"), { recursive: true });
  writeFileSync(join(import.meta.dirname, "results", "run-retention.json"), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(
    `per run (mark ×2 + prune look): ${small.cpuUs} µs CPU / ${small.wallUs} µs wall over 1 000 retained runs, ${large.cpuUs} µs CPU / ${large.wallUs} µs wall over 100 000 (CPU ratio ${ratio}, target ≤ ${TARGET})\n` +
      `removing a due run's sessions: ${removing.cpuUs} µs CPU / ${removing.wallUs} µs wall per run (${removing.runs} runs)\n`,
  );
  if (ratio > TARGET) process.exitCode = 1;
}

await main();
