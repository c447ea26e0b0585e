/**
 * What the slow samples of bench/approvals.bench.ts's gated call (A, SQLite) are (issue 47): the
 * same call, timed one by one, each tagged with what happened in it — a garbage collection
 * (PerformanceObserver 'gc', with its kind and ms), a WAL checkpoint (the WAL header's checkpoint
 * counter and salts change on the write after one: the call before it checkpointed) — beside its
 * CPU ms (process.cpuUsage: wall far above CPU is the scheduler or a sync). A diagnostic, not a
 * benchmark: it writes no result file.
 *
 * Run: `node --import tsx bench/approvals-tail.ts [calls]` (default 1,000 after 100 warm-up calls).
 */
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { createSqliteApprovalStore } from "../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
import { createGovernedToolPermissions } from "../src/app/approvals/governed-tool-permissions.js";
import type { ApprovalPolicy } from "../src/domain/approvals/policy.js";

const CALLS = Number(process.argv[2] ?? 1000);
const policy: ApprovalPolicy = { approverGroups: { sre: [{ subject: "alice" }] }, approvers: "sre", rules: [{ tool: "read_*", action: "allow" }, { tool: "bash", arguments: [{ path: "command", matches: "^rm " }], action: "deny" }] };
const gcs: { start: number; end: number; kind: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcs.push({ start: entry.startTime, end: entry.startTime + entry.duration, kind: (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0 });
}).observe({ entryTypes: ["gc"] });

const root = mkdtempSync(join(tmpdir(), "approvals-tail-"));
const wal = join(root, "store.sqlite-wal");
/** The WAL header's checkpoint sequence and salts (bytes 12–23), as hex. */
const walHeader = (): string => {
  if (!existsSync(wal)) return "";
  const fd = openSync(wal, "r");
  const bytes = Buffer.alloc(12);
  readSync(fd, bytes, 0, 12, 12);
  closeSync(fd);
  return bytes.toString("hex");
};
const store = createSqliteApprovalStore({ directory: root });
try {
  const permissions = createGovernedToolPermissions({ policy, store, clock: { now: Date.now } });
  const call = (requestId: string) => ({ requestId, runId: "run-bench", toolId: "deploy", arguments: { env: "prod", n: 1 }, requestedBy: { tenant: "key:bench", subject: "carol" } });
  await permissions.request(call("seed"));
  await permissions.decide({ requestId: "seed", outcome: "approved", approver: { surface: "cli", subject: "alice" }, scope: "always" });
  for (let n = 0; n < 100; n++) await permissions.request(call(`warm-${n}`));
  const samples: { ms: number; cpu: number; start: number; end: number; header: string }[] = [];
  for (let n = 0; n < CALLS; n++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    await permissions.request(call(`gated-${n}`));
    const end = performance.now();
    const used = process.cpuUsage(cpu);
    samples.push({ ms: end - start, cpu: (used.user + used.system) / 1000, start, end, header: walHeader() });
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  const tagged = samples.map((sample, n) => {
    const tags = gcs.filter((gc) => gc.end > sample.start && gc.start < sample.end).map((gc) => `gc kind ${gc.kind} ${(gc.end - gc.start).toFixed(2)} ms`);
    if (n + 1 < samples.length && samples[n + 1]!.header !== sample.header) tags.push("checkpoint");
    return { call: n, ms: Number(sample.ms.toFixed(3)), cpuMs: Number(sample.cpu.toFixed(3)), tags: tags.join(", ") };
  });
  const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!.toFixed(3);
  process.stdout.write(`p50 ${at(0.5)} ms, p99 ${at(0.99)} ms; checkpoints ${tagged.filter((sample) => sample.tags.includes("checkpoint")).length}, collections ${gcs.length} in ${CALLS} calls\n`);
  console.table([...tagged].sort((a, b) => b.ms - a.ms).slice(0, Math.max(12, Math.ceil(CALLS / 100) + 2)));
} finally {
  await store.close();
  rmSync(root, { recursive: true, force: true });
}
