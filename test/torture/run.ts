// `npm run torture`: the full SES-4 crash torture. Every scripted scenario is SIGKILLed at every
// persisted step boundary (just before and just after each committed session append), resumed
// by a fresh process and checked; then each scenario runs as a kill chain (every process dies at
// its first boundary). Every fourth kill point also re-runs the finished run id in a third
// process, which must rebuild equal items without any work (SES-3). Exit code 1 on any violation.
//
// Options: --scenario <name> (repeatable), --parallel <n> (default 2), --keep (keep the folder),
// --postgres (PG-3: the same sweep with sessions and usage on PostgreSQL, each scenario folder in a
// schema of its own; the server is STEAMHARNESS_TEST_POSTGRES_URL, or a throwaway cluster started
// with scripts/postgres-test-cluster.sh and removed afterwards).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SCENARIOS } from "../durable/fixtures/scenarios.js";
import { childBundle, inParallel } from "../durable/support/processes.js";
import { countAppends, runChain, runKillPoint, type KillPoint, type KillPointResult } from "../durable/support/torture.js";

const { values } = parseArgs({
  options: {
    scenario: { type: "string", multiple: true },
    parallel: { type: "string", default: String(Math.min(2, availableParallelism())) },
    keep: { type: "boolean", default: false },
    postgres: { type: "boolean", default: false },
  },
});
const scenarios = values.scenario ?? Object.keys(SCENARIOS);
const parallel = Math.max(1, Number(values.parallel));
const root = mkdtempSync(join(tmpdir(), "steamharness-torture-"));
const started = Date.now();

let cluster: string | null = null;
let postgresUrl: string | undefined;
if (values.postgres) {
  postgresUrl = process.env.STEAMHARNESS_TEST_POSTGRES_URL;
  if (!postgresUrl) {
    // A folder of its own (the script hands it to the postgres user when we are root): inside
    // `root`, a 0700 mkdtemp, initdb running as postgres could not enter it.
    cluster = mkdtempSync(join(tmpdir(), "steamharness-torture-postgres-"));
    postgresUrl = execFileSync("scripts/postgres-test-cluster.sh", ["start", cluster], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  }
  console.log(`PG-3: sessions and usage on PostgreSQL (${cluster ? "throwaway cluster" : "STEAMHARNESS_TEST_POSTGRES_URL"})`);
}
const backend = { ...(postgresUrl ? { postgresUrl } : {}) };

await childBundle();
const points: KillPoint[] = [];
for (const scenario of scenarios) {
  const appends = await countAppends(root, scenario, backend);
  console.log(`${scenario}: ${appends} committed appends → ${appends * 2} kill points`);
  for (let nth = 1; nth <= appends; nth++) points.push({ scenario, nth, when: "before" }, { scenario, nth, when: "after" });
}

let done = 0;
const report = (result: KillPointResult): KillPointResult => {
  done++;
  const status = result.violations.length === 0 ? "ok  " : "FAIL";
  const facts = [
    result.check?.unknownOutcomes.length ? `unknown: ${result.check.unknownOutcomes.join(",")}` : "",
    result.check?.redoneSafe.length ? `redone: ${result.check.redoneSafe.join(",")}` : "",
  ].filter(Boolean);
  console.log(`[${String(done).padStart(3)}] ${status} ${result.label}${facts.length ? ` (${facts.join("; ")})` : ""}`);
  for (const violation of result.violations) console.log(`       ✗ ${violation}`);
  return result;
};

const single = await inParallel(points, parallel, async (point, index) => report(await runKillPoint(root, point, { replay: index % 4 === 3, ...backend })));
const chains = await inParallel(
  scenarios.flatMap((scenario) => [{ scenario, when: "after" as const }, { scenario, when: "before" as const }]),
  parallel,
  async ({ scenario, when }) => report(await runChain(root, scenario, when, backend)),
);

const results = [...single, ...chains];
const kills = results.reduce((sum, result) => sum + result.kills, 0);
const processes = results.reduce((sum, result) => sum + result.processes, 0);
const failed = results.filter((result) => result.violations.length > 0);
const unknown = results.reduce((sum, result) => sum + (result.check?.unknownOutcomes.length ?? 0), 0);
const redone = results.reduce((sum, result) => sum + (result.check?.redoneSafe.length ?? 0), 0);
console.log(
  `\n${values.postgres ? "PG-3 (PostgreSQL) " : ""}${kills} kill points (SIGKILL), ${processes} processes, ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
    `${failed.length} failed; ${unknown} unknown outcomes told to the model, ${redone} safe calls redone.`,
);
if (cluster) execFileSync("scripts/postgres-test-cluster.sh", ["stop", cluster], { stdio: ["ignore", "ignore", "inherit"] });
else if (postgresUrl && !values.keep) await dropTortureSchemas(postgresUrl);
if (values.keep) console.log(`sessions kept in ${root}`);
else rmSync(root, { recursive: true, force: true });
if (kills < 100) {
  console.log(`expected at least 100 kill points, got ${kills}`);
  process.exitCode = 1;
}
if (failed.length > 0) process.exitCode = 1;

/** Drops the schemas the sweep made on a server it did not start. */
async function dropTortureSchemas(url: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>("select nspname as name from pg_namespace where nspname like 'torture\\_%'");
    for (const { name } of rows) await client.query(`drop schema if exists "${name}" cascade`);
  } finally {
    await client.end();
  }
}
