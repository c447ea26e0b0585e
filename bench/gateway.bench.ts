/**
 * Gateway overhead (issue 15, GW-1). The same host-driven turn — an offline model streaming a
 * 480-character answer in 60 deltas — two ways, interleaved in rounds (medians):
 *
 * - `inProcess` (baseline): the agent node's `stream` called in this process with `hostInput`,
 *   timing the first `agent-answer` delta and the end of the run.
 * - `gateway`: a streamed `POST /v1/responses` through `startGateway` on 127.0.0.1 (keep-alive
 *   client on node:http), timing the first `response.output_text.delta` event and the end of the
 *   stream. Target: gateway ≤ 1.2 × in-process + 2 ms, for time to first token and total.
 *
 * Then 32 concurrent streamed requests on distinct conversations: all must complete; latency
 * p50/p99 over the rounds. Rate limiting is off here (it is a per-client policy, not a cost).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { ANSWER, cpuMs, gatewayBenchTurn, sinceMs, streamedResponse, type Timing } from "./gateway-support.js";

const ROUNDS = 5;
const TURNS = 40;
const CONCURRENCY = 32;
const CONCURRENT_ROUNDS = 5;

const { gateway, storage, inProcess, trimCalls } = await gatewayBenchTurn();
const url = new URL(`${gateway.url}/responses`);
const keepAlive = new Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });

/** A streamed Responses request through the gateway (its timing only: the body is not kept). */
async function viaGateway(): Promise<Timing> {
  const { firstMs, totalMs } = await streamedResponse(url, keepAlive, () => JSON.stringify({ model: "bench", input: "Tell me about the gateway", stream: true }));
  return { firstMs, totalMs };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
const round4 = (value: number): number => Number(value.toFixed(4));

// Warm-up: both sides, so JIT and connection setup are out of the measurement.
for (let i = 0; i < 20; i++) {
  await inProcess(-i);
  await viaGateway();
}
trimCalls();

const first = { direct: [] as number[], gateway: [] as number[] };
const total = { direct: [] as number[], gateway: [] as number[] };
const cpu = { direct: [] as number[], gateway: [] as number[] };
for (let round = 1; round <= ROUNDS; round++) {
  const d: Timing[] = [];
  const g: Timing[] = [];
  let directCpu = 0;
  let gatewayCpu = 0;
  for (let i = 0; i < TURNS; i++) {
    const c0 = cpuMs();
    d.push(await inProcess(round * 1000 + i));
    const c1 = cpuMs();
    g.push(await viaGateway());
    directCpu += c1 - c0;
    gatewayCpu += cpuMs() - c1;
  }
  cpu.direct.push(directCpu / TURNS);
  cpu.gateway.push(gatewayCpu / TURNS);
  trimCalls();
  first.direct.push(median(d.map((t) => t.firstMs)));
  first.gateway.push(median(g.map((t) => t.firstMs)));
  total.direct.push(median(d.map((t) => t.totalMs)));
  total.gateway.push(median(g.map((t) => t.totalMs)));
}
const compare = (direct: number[], viaGw: number[]) => {
  const d = median(direct);
  const g = median(viaGw);
  const budget = 1.2 * d + 2;
  return { inProcessMs: round4(d), gatewayMs: round4(g), overheadMs: round4(g - d), ratio: Number((g / d).toFixed(2)), budgetMs: round4(budget), meetsTarget: g <= budget };
};
const firstToken = compare(first.direct, first.gateway);
const totalTime = compare(total.direct, total.gateway);
// This process's CPU per request (client and server share it): steadier than wall time when other
// processes load the machine, and what the gateway itself costs.
const cpuPerRequest = { inProcessMs: round4(median(cpu.direct)), gatewayMs: round4(median(cpu.gateway)), ratio: Number((median(cpu.gateway) / median(cpu.direct)).toFixed(2)), note: "gateway side includes the HTTP client in the same process" };
const loadAverage = (await import("node:os")).loadavg().map((value) => Number(value.toFixed(2)));

// 32 concurrent streamed requests, each on its own conversation.
const latencies: number[] = [];
const walls: number[] = [];
let completed = 0;
for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
  const start = process.hrtime.bigint();
  const results = await Promise.all(Array.from({ length: CONCURRENCY }, () => viaGateway()));
  walls.push(sinceMs(start));
  completed += results.length;
  latencies.push(...results.map((t) => t.totalMs));
  trimCalls();
}
const leftRunning = gateway.activeRuns();
keepAlive.destroy();
await gateway.close();
await storage.close();

const result = {
  bench: "gateway",
  at: new Date().toISOString(),
  node: process.version,
  turn: `offline model, ${ANSWER.length}-character answer in ${Math.ceil(ANSWER.length / 8)} deltas; streamed Responses request vs the node in process`,
  target: "gateway ≤ 1.2 × in-process + 2 ms (time to first token and total)",
  rounds: ROUNDS,
  turnsPerRound: TURNS,
  timeToFirstToken: firstToken,
  total: totalTime,
  cpuPerRequest,
  loadAverage,
  concurrent: {
    requests: CONCURRENCY,
    rounds: CONCURRENT_ROUNDS,
    completed,
    allCompleted: completed === CONCURRENCY * CONCURRENT_ROUNDS,
    p50Ms: round4(percentile(latencies, 50)),
    p99Ms: round4(percentile(latencies, 99)),
    medianWallMsPer32: round4(median(walls)),
    leftRunning,
  },
};
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/gateway.json", `${JSON.stringify(result, null, 2)}\n`);
console.log(`first token: in-process ${firstToken.inProcessMs} ms, gateway ${firstToken.gatewayMs} ms → ${firstToken.ratio}× (+${firstToken.overheadMs} ms; budget ${firstToken.budgetMs} ms: ${firstToken.meetsTarget ? "met" : "MISSED"})`);
console.log(`total:       in-process ${totalTime.inProcessMs} ms, gateway ${totalTime.gatewayMs} ms → ${totalTime.ratio}× (+${totalTime.overheadMs} ms; budget ${totalTime.budgetMs} ms: ${totalTime.meetsTarget ? "met" : "MISSED"})`);
console.log(`cpu/request: in-process ${cpuPerRequest.inProcessMs} ms, gateway (with client) ${cpuPerRequest.gatewayMs} ms → ${cpuPerRequest.ratio}×; load average ${loadAverage.join(" ")}`);
console.log(`concurrent:  ${completed}/${CONCURRENCY * CONCURRENT_ROUNDS} completed (${CONCURRENCY} at a time), p50 ${result.concurrent.p50Ms} ms, p99 ${result.concurrent.p99Ms} ms, ${result.concurrent.medianWallMsPer32} ms per batch; runs left: ${leftRunning}`);
if (!result.concurrent.allCompleted || leftRunning !== 0) process.exitCode = 1;
