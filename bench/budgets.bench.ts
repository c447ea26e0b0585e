/**
 * Budgets (issue 28, BUD-1/BUD-2); writes bench/results/budgets.json.
 *
 * A. One model call's ledger work — reserve against four budgets (run, conversation, project,
 *    tenant) then settle — on SQLite (the store file, WAL) and on PostgreSQL: p50/p99 in ms over
 *    sequential calls after a warm-up. Goals: p99 ≤ 2 ms (SQLite), ≤ 5 ms (PostgreSQL).
 * B. The durable 100-step tool loop of bench/durable.bench.ts (benchLoopNode, a conversation on the
 *    SQLite storage) with budgets on (four token and money limits, max tool calls) versus off,
 *    alternating rounds in one process: median ms per run and the ratio. Goal ≤ 1.1×.
 * B2. After B, beside it: the same pairs over 31 rounds (which of the two runs first alternates),
 *    with the median of each pair's own ratio (report).
 *    B and B2 run the product's default budget settings: since stop 37 that is a lease of up to 8
 *    calls per reservation where it is ≤ 1 % of every limit (here it is).
 * B3. After B2, beside it: B2's pairs with `leaseCalls: 1` for the budgets-on run — every call
 *    reserved alone, what B and B2 measured up to stop 36 (report).
 * A2. After C, beside A: one call's ledger work as a run now does it — the previous call's settle
 *    and this call's reserve as one finishAndReserve — p50/p99 on SQLite and PostgreSQL (report).
 * C. Beside A and B, in extra passes after them (bench/budgets-attribution.ts): the SQLite slowest
 *    1 % split into run-queue wait, GC and the rest; a CPU spin of the SQLite call's CPU length
 *    timed the same way (this machine's floor at this load); PostgreSQL round trips of a reserve
 *    and of a settle apart; the load average.
 *
 * PostgreSQL is STEAMHARNESS_TEST_POSTGRES_URL, or a throwaway cluster started with
 * scripts/postgres-test-cluster.sh and removed at the end.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createPostgresStorage } from "../src/adapters/driven/postgres/postgres-storage.js";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { runStreamNode } from "../src/domain/stream-node.js";
import type { BudgetLedger, BudgetLimit } from "../src/ports/budget-ledger.js";
import { createNodeContext } from "../src/compose/node-context.js";
import { attributeSlowCalls, spinFloor } from "./budgets-attribution.js";
import { BENCH_CATALOG, benchLoopNode } from "./durable-support.js";

const root = mkdtempSync(join(tmpdir(), "bench-budgets-"));
const round = (value: number, digits = 3): number => Number(value.toFixed(digits));
const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const median = (values: number[]): number => percentile(values, 0.5);

let cluster: string | null = null;
let url = process.env.STEAMHARNESS_TEST_POSTGRES_URL;
if (!url) {
  // A folder of its own, not under the private (0700) root: the server runs as the postgres user.
  cluster = mkdtempSync(join(tmpdir(), "bench-budgets-cluster-"));
  url = execFileSync("scripts/postgres-test-cluster.sh", ["start", cluster], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
}
const schema = `bench_budgets_${process.pid}`;

// A. reserve + settle ---------------------------------------------------------------------
/** The four budgets every benchmarked reservation holds against. */
const BENCH_LIMITS: BudgetLimit[] = [
  { scope: "run", id: "run-bench", tokens: 1e12 },
  { scope: "conversation", id: "conv-bench", tokens: 1e12 },
  { scope: "project", id: "project-bench", costMicros: 1e12 },
  { scope: "tenant", id: "tenant-bench", period: "month", costMicros: 1e12 },
];

async function reserveSettle(ledger: BudgetLedger, calls: number, warmup: number): Promise<{ p50: number; p99: number; cpuMsPerCall: number }> {
  const limits = BENCH_LIMITS;
  const times: number[] = [];
  let cpu = process.cpuUsage();
  for (let i = 0; i < warmup + calls; i++) {
    if (i === warmup) cpu = process.cpuUsage();
    const started = performance.now();
    const outcome = await ledger.reserve({ reservationId: `bench-${i}`, limits, amount: { tokens: 17_000, costMicros: 250_000 }, at: Date.now() });
    if (!outcome.ok) throw new Error("bench reservation refused");
    await ledger.settle(`bench-${i}`, { tokens: 1200, costMicros: 9000 });
    if (i >= warmup) times.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  // CPU time of this process per call: what the call costs here, apart from waiting for a core.
  return { p50: round(percentile(times, 0.5)), p99: round(percentile(times, 0.99)), cpuMsPerCall: round((used.user + used.system) / 1000 / calls) };
}

const sqlite = createSqliteStorage({ directory: join(root, "ledger") });
const sqliteLedger = await reserveSettle(sqlite.budgets, 2000, 200);
await sqlite.close();
// The server's floor in the same run: one `select 1` round trip (the machine and server are shared).
const floorClient = new pg.Client({ connectionString: url });
await floorClient.connect();
const floorTimes: number[] = [];
for (let i = 0; i < 1100; i++) {
  const started = performance.now();
  await floorClient.query("select 1");
  if (i >= 100) floorTimes.push(performance.now() - started);
}
await floorClient.end();
const roundTrip = { p50: round(percentile(floorTimes, 0.5)), p99: round(percentile(floorTimes, 0.99)) };
const postgres = await createPostgresStorage({ connectionString: url, schema });
const postgresLedger = await reserveSettle(postgres.budgets!, 1000, 100);
// Round trips of one more reserve + settle, counted (after the measured calls, which run unwrapped).
let postgresReserveRoundTrips = 0;
const postgresRoundTrips = await (async () => {
  const original = pg.Client.prototype.query;
  let count = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count += 1;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    const limits = BENCH_LIMITS;
    await postgres.budgets!.reserve({ reservationId: "bench-count", limits, amount: { tokens: 17_000, costMicros: 250_000 }, at: Date.now() });
    postgresReserveRoundTrips = count;
    await postgres.budgets!.settle("bench-count", { tokens: 1200, costMicros: 9000 });
    return count;
  } finally {
    pg.Client.prototype.query = original;
  }
})();
await postgres.close();
console.log(`A. reserve+settle (4 budgets): SQLite p50 ${sqliteLedger.p50} ms p99 ${sqliteLedger.p99} ms (CPU ${sqliteLedger.cpuMsPerCall} ms/call; goal ≤ 2); PostgreSQL p50 ${postgresLedger.p50} ms p99 ${postgresLedger.p99} ms (CPU ${postgresLedger.cpuMsPerCall} ms/call) (goal ≤ 5; ${postgresRoundTrips} round trips, one round trip p50 ${roundTrip.p50} ms p99 ${roundTrip.p99} ms)`);

// B. durable 100-step loop, budgets on / off ---------------------------------------------
const STEPS = 100;
const budget = {
  limits: [
    { scope: "run" as const, tokens: 1e9 },
    { scope: "conversation" as const, tokens: 1e9 },
    { scope: "project" as const, costUsd: 1e6 },
    { scope: "tenant" as const, period: "month" as const, costUsd: 1e6 },
  ],
  tenantId: "bench-tenant",
  price: { input: 3, output: 15 },
  maxToolCalls: 10_000,
};
const onCpu: number[] = [];
const offCpu: number[] = [];
async function loop(on: boolean, n: number, leaseCalls?: number): Promise<number> {
  const folder = join(root, `loop-${on ? "on" : "off"}-${n}${leaseCalls === undefined ? "" : `-lease${leaseCalls}`}`);
  const storage = createSqliteStorage({ directory: join(folder, "store"), agentStoreDir: join(folder, "agents") });
  const node = benchLoopNode(STEPS, "answer", on ? { budget: leaseCalls === undefined ? budget : { ...budget, leaseCalls } } : {});
  const context = createNodeContext({ projectId: "bench", conversationId: "loop", storage, runId: "run-loop", toolCatalog: BENCH_CATALOG });
  const started = performance.now();
  const cpu = process.cpuUsage();
  await runStreamNode(node, { prompt: "Run the loop." }, context);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (n >= 0) (on ? onCpu : offCpu).push((used.user + used.system) / 1000);
  await storage.close();
  return ms;
}
const on: number[] = [];
const off: number[] = [];
await loop(false, -1);
await loop(true, -1);
for (let n = 0; n < 7; n++) {
  off.push(await loop(false, n));
  on.push(await loop(true, n));
}
const best = (values: number[]) => Math.min(...values);
const loopResult = { steps: STEPS, offMedianMs: round(median(off)), onMedianMs: round(median(on)), ratio: round(median(on) / median(off)), offBestMs: round(best(off)), onBestMs: round(best(on)), bestRatio: round(best(on) / best(off)), offCpuMedianMs: round(median(offCpu)), onCpuMedianMs: round(median(onCpu)), cpuRatio: round(median(onCpu) / median(offCpu)) };
console.log(`B. durable ${STEPS}-step loop: budgets off ${loopResult.offMedianMs} ms, on ${loopResult.onMedianMs} ms → ${loopResult.ratio}× (best of 7: ${loopResult.bestRatio}×; CPU time ${loopResult.cpuRatio}×; goal ≤ 1.1)`);

// B2. Beside B (its definition unchanged, and run after it): the same alternating loop pairs,
// 31 rounds instead of 7, and the median of each round's own on/off ratio. On a shared machine
// whose drift is slower than one pair, the per-pair ratio cancels the drift that moves B's two
// medians apart (B's 7-round ratio spread 0.88–1.39 over eight runs on one quiet machine on 2026-12-02).
const pairRatios: number[] = [];
const onLong: number[] = [];
const offLong: number[] = [];
for (let n = 0; n < 31; n++) {
  const first = n % 2 === 0;
  // A negative n keeps these runs out of B's CPU figures.
  const a = await loop(!first, -2 - n);
  const b = await loop(first, -2 - n);
  const [offMs, onMs] = first ? [a, b] : [b, a];
  offLong.push(offMs);
  onLong.push(onMs);
  pairRatios.push(onMs / offMs);
}
const longResult = { rounds: 31, offMedianMs: round(median(offLong)), onMedianMs: round(median(onLong)), ratio: round(median(onLong) / median(offLong)), pairRatioMedian: round(median(pairRatios)), pairRatioP25: round(percentile(pairRatios, 0.25)), pairRatioP75: round(percentile(pairRatios, 0.75)) };
console.log(`B2. the same loop, 31 alternating pairs: off ${longResult.offMedianMs} ms, on ${longResult.onMedianMs} ms → ${longResult.ratio}×; median of the pairs' ratios ${longResult.pairRatioMedian}× (quartiles ${longResult.pairRatioP25}–${longResult.pairRatioP75})`);

// B3. Beside B2 (after it): the same alternating pairs with every call reserved alone
// (`leaseCalls: 1`), the budgets-on run of B and B2 up to stop 36.
const alonePairRatios: number[] = [];
const aloneOn: number[] = [];
const aloneOff: number[] = [];
for (let n = 0; n < 31; n++) {
  const first = n % 2 === 0;
  const a = await loop(!first, -100 - n, first ? undefined : 1);
  const b = await loop(first, -100 - n, first ? 1 : undefined);
  const [offMs, onMs] = first ? [a, b] : [b, a];
  aloneOff.push(offMs);
  aloneOn.push(onMs);
  alonePairRatios.push(onMs / offMs);
}
const aloneResult = { definition: "B3, beside B2: B2's 31 alternating pairs with leaseCalls 1 (every call reserved alone) for the budgets-on run", rounds: 31, offMedianMs: round(median(aloneOff)), onMedianMs: round(median(aloneOn)), ratio: round(median(aloneOn) / median(aloneOff)), pairRatioMedian: round(median(alonePairRatios)), pairRatioP25: round(percentile(alonePairRatios, 0.25)), pairRatioP75: round(percentile(alonePairRatios, 0.75)) };
console.log(`B3. the same pairs, each call reserved alone (leaseCalls 1): off ${aloneResult.offMedianMs} ms, on ${aloneResult.onMedianMs} ms → ${aloneResult.ratio}×; median of the pairs' ratios ${aloneResult.pairRatioMedian}× (quartiles ${aloneResult.pairRatioP25}–${aloneResult.pairRatioP75})`);

// C. Beside the figures above (extra passes after them, so they do not change them): where the
// slow calls' time goes, the machine's floor for a call of the same CPU length, and the
// round trips of a reserve and of a settle apart.
const attributionStorage = createSqliteStorage({ directory: join(root, "attribution") });
const sqliteSlowCalls = await attributeSlowCalls(async (i) => {
  await attributionStorage.budgets.reserve({ reservationId: `slow-${i}`, limits: BENCH_LIMITS, amount: { tokens: 17_000, costMicros: 250_000 }, at: Date.now() });
  await attributionStorage.budgets.settle(`slow-${i}`, { tokens: 1200, costMicros: 9000 });
}, 2000, 200);
await attributionStorage.close();
const floor = await spinFloor(sqliteLedger.cpuMsPerCall, 2000);
const loadAverage = loadavg().map((value) => round(value, 2));
console.log(`C. SQLite slowest 1 %: ${sqliteSlowCalls.wallMs} ms wall = run-queue wait ${sqliteSlowCalls.runQueueWaitMs} + GC ${sqliteSlowCalls.gcMs} + other ${sqliteSlowCalls.otherMs} (GC pauses ${sqliteSlowCalls.gcPausesPer1000Calls}/1000 calls); a ${floor.cpuMs} ms CPU spin: p50 ${floor.p50} ms p99 ${floor.p99} ms; PostgreSQL round trips: reserve ${postgresReserveRoundTrips}, settle ${postgresRoundTrips - postgresReserveRoundTrips}; load average ${loadAverage.join(" ")}`);

// A2. Beside A (its definition unchanged, and run after A–C): the ledger work of one model call
// as a run does it since stop 36 (BUD-2) — the previous call's settle and this call's reserve in
// one `finishAndReserve` — timed per call the same way, on SQLite and PostgreSQL.
async function finishAndReserveCalls(ledger: BudgetLedger, calls: number, warmup: number): Promise<{ p50: number; p99: number; cpuMsPerCall: number }> {
  const times: number[] = [];
  await ledger.reserve({ reservationId: "chain-0", limits: BENCH_LIMITS, amount: { tokens: 17_000, costMicros: 250_000 }, at: Date.now() });
  let cpu = process.cpuUsage();
  for (let i = 1; i <= warmup + calls; i++) {
    if (i === warmup + 1) cpu = process.cpuUsage();
    const started = performance.now();
    const outcome = await ledger.finishAndReserve!({ reservationId: `chain-${i - 1}`, actual: { tokens: 1200, costMicros: 9000 } }, { reservationId: `chain-${i}`, limits: BENCH_LIMITS, amount: { tokens: 17_000, costMicros: 250_000 }, at: Date.now() });
    if (!outcome.ok) throw new Error("bench reservation refused");
    if (i > warmup) times.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  return { p50: round(percentile(times, 0.5)), p99: round(percentile(times, 0.99)), cpuMsPerCall: round((used.user + used.system) / 1000 / calls) };
}
const chainSqlite = createSqliteStorage({ directory: join(root, "ledger-chain") });
const sqliteChain = await finishAndReserveCalls(chainSqlite.budgets, 2000, 200);
await chainSqlite.close();
const chainPostgres = await createPostgresStorage({ connectionString: url, schema });
const postgresChain = await finishAndReserveCalls(chainPostgres.budgets!, 1000, 100);
await chainPostgres.close();
console.log(`A2. one call's ledger work as a run does it (settle of the previous call + reserve, finishAndReserve): SQLite p50 ${sqliteChain.p50} ms p99 ${sqliteChain.p99} ms (CPU ${sqliteChain.cpuMsPerCall} ms/call); PostgreSQL p50 ${postgresChain.p50} ms p99 ${postgresChain.p99} ms (CPU ${postgresChain.cpuMsPerCall} ms/call)`);

const result = {
  reserveSettle: {
    budgets: 4,
    sqlite: { ...sqliteLedger, goalP99Ms: 2, calls: 2000, slowestPercent: sqliteSlowCalls, spinFloor: floor },
    postgres: { ...postgresLedger, goalP99Ms: 5, calls: 1000, roundTrips: postgresRoundTrips, roundTripsReserve: postgresReserveRoundTrips, roundTripsSettle: postgresRoundTrips - postgresReserveRoundTrips, selectOneRoundTrip: roundTrip },
    loadAverage,
  },
  reserveSettleAsRun: { definition: "A2, beside A: per call, the previous call's settle and this call's reserve as one finishAndReserve (how a run settles since BUD-2's deferred settle), four budgets, after A–C", sqlite: { ...sqliteChain, calls: 2000 }, postgres: { ...postgresChain, calls: 1000 } },
  durableLoop: { ...loopResult, goal: 1.1, rounds: 7 },
  durableLoopLong: longResult,
  durableLoopEachCallAlone: aloneResult,
};
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/budgets.json", `${JSON.stringify(result, null, 2)}\n`);
const raw = new pg.Client({ connectionString: url });
await raw.connect();
await raw.query(`drop schema if exists "${schema}" cascade`);
await raw.end();
if (cluster) execFileSync("scripts/postgres-test-cluster.sh", ["stop", cluster], { stdio: "inherit" });
rmSync(root, { recursive: true, force: true });
