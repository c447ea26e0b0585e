/**
 * Where a gated call's time goes on PostgreSQL (issue 47, GOV-5/7): bench/approvals.bench.ts's
 * gated call (A: asks, covered by a standing `always` decision), timed sequentially, with the CPU
 * of this process (process.cpuUsage) and of the server backends serving the store's pool (their
 * /proc/<pid>/stat utime + stime, found by the pool's application_name) per call. On a machine
 * loaded by other processes wall time is mostly theirs; the two CPU figures are what a change to
 * the call's statements moves. A diagnostic, not a benchmark: it writes no result file. Needs the
 * server on this machine (its /proc).
 *
 * Run: `STEAMHARNESS_TEST_POSTGRES_URL=… node --import tsx bench/approvals-postgres-cpu.ts [calls]` (default 3,000 after 200 warm-up calls).
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { createPostgresApprovalStore } from "../src/adapters/driven/postgres/postgres-approval-store.js";
import { createGovernedToolPermissions } from "../src/app/approvals/governed-tool-permissions.js";
import type { ApprovalPolicy } from "../src/domain/approvals/policy.js";

const CALLS = Number(process.argv[2] ?? 3000);
const base = process.env.STEAMHARNESS_TEST_POSTGRES_URL;
if (!base) throw new Error("set STEAMHARNESS_TEST_POSTGRES_URL");
const application = `approvals_cpu_${process.pid}`;
const schema = `bench_approvals_cpu_${process.pid}`;
const policy: ApprovalPolicy = { approverGroups: { sre: [{ subject: "alice" }] }, approvers: "sre", rules: [{ tool: "read_*", action: "allow" }] };

/** Milliseconds of CPU the server's backends of this process's pool have used (clock ticks of 10 ms). */
async function serverCpuMs(): Promise<number> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>("select pid from pg_stat_activity where application_name = $1", [application]);
  await client.end();
  return rows.reduce((sum, { pid }) => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return sum + (Number(fields[11]) + Number(fields[12])) * 10;
  }, 0);
}

const store = await createPostgresApprovalStore({ connectionString: `${base}${base.includes("?") ? "&" : "?"}application_name=${application}`, schema });
try {
  const permissions = createGovernedToolPermissions({ policy, store, clock: { now: Date.now } });
  const call = (requestId: string) => ({ requestId, runId: "run-bench", toolId: "deploy", arguments: { env: "prod", n: 1 }, requestedBy: { tenant: "key:bench", subject: "carol" } });
  await permissions.request(call("seed"));
  await permissions.decide({ requestId: "seed", outcome: "approved", approver: { surface: "cli", subject: "alice" }, scope: "always" });
  for (let n = 0; n < 200; n++) await permissions.request(call(`warm-${n}`));
  const server = await serverCpuMs();
  const cpu = process.cpuUsage();
  const times: number[] = [];
  for (let n = 0; n < CALLS; n++) {
    const started = performance.now();
    const outcome = await permissions.request(call(`gated-${n}`));
    times.push(performance.now() - started);
    if (outcome.outcome !== "approved") throw new Error(`not approved: ${outcome.outcome}`);
  }
  const used = process.cpuUsage(cpu);
  const serverUsed = (await serverCpuMs()) - server;
  times.sort((a, b) => a - b);
  const at = (p: number) => Number(times[Math.min(CALLS - 1, Math.floor(CALLS * p))]!.toFixed(3));
  const perCall = (ms: number) => Number((ms / CALLS).toFixed(3));
  process.stdout.write(`${JSON.stringify({ calls: CALLS, p50: at(0.5), p99: at(0.99), clientCpuMsPerCall: perCall((used.user + used.system) / 1000), serverCpuMsPerCall: perCall(serverUsed) })}\n`);
} finally {
  await store.close();
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
