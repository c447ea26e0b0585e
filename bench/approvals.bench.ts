/**
 * Governed approvals (issue 47, GOV-1/5/6/7); writes bench/results/approvals.json.
 *
 * A. One gated call that asks and is covered by a standing `always` decision — policy evaluation,
 *    request record, decision checks and two audit appends (request, use) — p50/p99 in ms over
 *    sequential calls after a warm-up, on SQLite (the store file, WAL) and on PostgreSQL when
 *    STEAMHARNESS_TEST_POSTGRES_URL is set. Goals: p99 ≤ 2 ms (SQLite), ≤ 5 ms (PostgreSQL).
 * B. A call the policy allows outright (evaluation + one audit append).
 * C. One audit append alone.
 * Not measured yet: the durable 100-step loop with every call gated by an auto-allow policy vs none.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createPostgresApprovalStore } from "../src/adapters/driven/postgres/postgres-approval-store.js";
import { createSqliteApprovalStore } from "../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
import { createGovernedToolPermissions } from "../src/app/approvals/governed-tool-permissions.js";
import type { ApprovalPolicy } from "../src/domain/approvals/policy.js";
import type { ApprovalStore } from "../src/ports/approval-store.js";

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
  return { gatedCall: gated, allowedCall: allowed, auditAppend: append };
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
  result.loadavgAfter = loadavg().map(round);
  result.goals = { sqliteGatedP99Ms: 2, postgresGatedP99Ms: 5 };
} finally {
  rmSync(root, { recursive: true, force: true });
}
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/approvals.json", `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
