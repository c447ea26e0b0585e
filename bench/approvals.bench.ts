/**
 * Governed approvals (issue 47, GOV-1/5/6/7); writes bench/results/approvals.json.
 *
 * A. One gated call that asks and is covered by a standing `always` decision — policy evaluation,
 *    request record, decision checks and two audit appends (request, use) — p50/p99 in ms over
 *    sequential calls after a warm-up, on SQLite (the store file, WAL) and on PostgreSQL when
 *    STEAMHARNESS_TEST_POSTGRES_URL is set. Goals: p99 ≤ 2 ms (SQLite), ≤ 5 ms (PostgreSQL).
 * B. A call the policy allows outright (evaluation + one audit append).
 * C. One audit append alone.
 * E. A's gated call again, its CPU time per call (process.cpuUsage) instead of wall time.
 * D. The durable 100-step loop of bench/durable.bench.ts (bench/durable-support.ts) with every
 *    `lookup` call gated by an auto-allow policy on the SQLite approval store beside the storage
 *    (one policy evaluation and one audit append per call; the final `deploy` asks and pauses the
 *    run), against the same loop with no policy (`lookup` auto-approved by the catalog, ending
 *    paused the same way). Alternating rounds, fresh folders each, medians; goal ≤ 1.1×.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createPostgresApprovalStore } from "../src/adapters/driven/postgres/postgres-approval-store.js";
import { createSqliteApprovalStore } from "../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
import { createGovernedToolPermissions } from "../src/app/approvals/governed-tool-permissions.js";
import type { ApprovalPolicy } from "../src/domain/approvals/policy.js";
import type { ApprovalStore } from "../src/ports/approval-store.js";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { timedLoop } from "./durable-support.js";

const CALLS = 1000;
const WARMUP = 100;
const round = (value: number): number => Number(value.toFixed(3));
const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const policy: ApprovalPolicy = { approverGroups: { sre: [{ subject: "alice" }] }, approvers: "sre", rules: [{ tool: "read_*", action: "allow" }, { tool: "bash", arguments: [{ path: "command", matches: "^rm " }], action: "deny" }] };

async function timed(count: number, step: (n: number) => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let n = 0; n < WARMUP; n++) await step(-1 - n);
  const times: number[] = [];
  for (let n = 0; n < count; n++) {
    const started = performance.now();
    await step(n);
    times.push(performance.now() - started);
  }
  return { p50: round(percentile(times, 0.5)), p99: round(percentile(times, 0.99)) };
}

async function measure(store: ApprovalStore): Promise<Record<string, { p50: number; p99: number }>> {
  const permissions = createGovernedToolPermissions({ policy, store, clock: { now: Date.now } });
  const call = (requestId: string, toolId = "deploy") => ({ requestId, runId: "run-bench", toolId, arguments: { env: "prod", n: 1 }, requestedBy: { tenant: "key:bench", subject: "carol" } });
  await permissions.request(call("seed"));
  await permissions.decide({ requestId: "seed", outcome: "approved", approver: { surface: "cli", subject: "alice" }, scope: "always" });
  const gated = await timed(CALLS, async (n) => {
    const outcome = await permissions.request(call(`gated-${n}`));
    if (outcome.outcome !== "approved") throw new Error(`not approved: ${outcome.outcome}`);
  });
  const allowed = await timed(CALLS, (n) => permissions.request(call(`allowed-${n}`, "read_logs")));
  const append = await timed(CALLS, (n) => store.appendAudit({ tenant: "key:bench-append", at: Date.now(), kind: "use", requestId: `r${n}`, data: { n } }));
  // E (beside A, not replacing it): the same gated call's CPU time (process.cpuUsage), which
  // other processes on a loaded machine do not inflate; wall minus CPU is waiting (I/O, the network, the scheduler).
  const cpu: number[] = [];
  for (let n = 0; n < CALLS; n++) {
    const before = process.cpuUsage();
    await permissions.request(call(`cpu-${n}`));
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
  }
  return { gatedCall: gated, allowedCall: allowed, auditAppend: append, gatedCallCpu: { p50: round(percentile(cpu, 0.5)), p99: round(percentile(cpu, 0.99)) } };
}

const LOOP_STEPS = 100;
const LOOP_ROUNDS = 7;
const median = (values: number[]): number => percentile(values, 0.5);

/** One run of the 100-step loop in a fresh folder, gated by the auto-allow policy or not; wall and CPU ms per step. */
async function loopOnce(root: string, round: number, gated: boolean): Promise<{ wall: number; cpu: number }> {
  const directory = join(root, `loop-${round}-${gated ? "gated" : "plain"}`);
  const storage = createSqliteStorage({ directory: join(directory, "store"), agentStoreDir: join(directory, "agents") });
  const store = gated ? createSqliteApprovalStore({ directory: join(directory, "store") }) : undefined;
  try {
    const gate = store && { toolCatalog: [{ id: "lookup" }, { id: "deploy" }], toolPermissions: createGovernedToolPermissions({ policy: { rules: [{ tool: "lookup", action: "allow" }] }, store, clock: { now: Date.now } }) };
    const cpu = process.cpuUsage();
    const { ms, paused } = await timedLoop(storage, "loop", LOOP_STEPS, gate);
    const used = process.cpuUsage(cpu);
    if (!paused) throw new Error("the loop did not end paused on its deploy approval");
    if (store && (await store.audit("local")).length !== LOOP_STEPS + 1) throw new Error("not every call was gated");
    return { wall: ms / LOOP_STEPS, cpu: (used.user + used.system) / 1000 / LOOP_STEPS };
  } finally {
    await store?.close();
    await storage.close();
  }
}

async function gatedLoop(root: string): Promise<Record<string, number>> {
  const plain: { wall: number; cpu: number }[] = [];
  const gated: { wall: number; cpu: number }[] = [];
  await loopOnce(root, -1, false);
  await loopOnce(root, -1, true);
  for (let round = 0; round < LOOP_ROUNDS; round++) {
    // Alternating which goes first, so drift in the machine's load falls on both.
    for (const gate of round % 2 === 0 ? [false, true] : [true, false]) (gate ? gated : plain).push(await loopOnce(root, round, gate));
  }
  // Wall time on a loaded machine is mostly other processes' time: CPU time is reported beside it.
  const of = (runs: typeof plain, key: "wall" | "cpu") => median(runs.map((run) => run[key]));
  return {
    steps: LOOP_STEPS, rounds: LOOP_ROUNDS,
    noPolicyMsPerStep: round(of(plain, "wall")), gatedMsPerStep: round(of(gated, "wall")), ratio: round(of(gated, "wall") / of(plain, "wall")),
    noPolicyCpuMsPerStep: round(of(plain, "cpu")), gatedCpuMsPerStep: round(of(gated, "cpu")), cpuRatio: round(of(gated, "cpu") / of(plain, "cpu")),
  };
}

const root = mkdtempSync(join(tmpdir(), "bench-approvals-"));
const result: Record<string, unknown> = { calls: CALLS, warmup: WARMUP, loadavgBefore: loadavg().map(round) };
try {
  const sqlite = createSqliteApprovalStore({ directory: root });
  result.sqlite = await measure(sqlite);
  await sqlite.close();
  const url = process.env.STEAMHARNESS_TEST_POSTGRES_URL;
  if (url) {
    const schema = `bench_approvals_${process.pid}`;
    const postgres = await createPostgresApprovalStore({ connectionString: url, schema });
    result.postgres = await measure(postgres);
    await postgres.close();
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  } else result.postgres = "not measured: STEAMHARNESS_TEST_POSTGRES_URL unset";
  result.gatedLoop = await gatedLoop(root);
  result.loadavgAfter = loadavg().map(round);
  result.goals = { sqliteGatedP99Ms: 2, postgresGatedP99Ms: 5, gatedLoopRatio: 1.1 };
} finally {
  rmSync(root, { recursive: true, force: true });
}
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/approvals.json", `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
