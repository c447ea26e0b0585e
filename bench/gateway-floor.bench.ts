/**
 * Gateway overhead, split (a variant beside `gateway.bench.ts`, whose definition is unchanged).
 * The same host-driven turn as there, three ways, interleaved in rounds (medians):
 *
 * - `inProcess`: the agent node streamed in this process (the baseline of gateway.bench.ts);
 * - `gateway`: the streamed `POST /v1/responses` of gateway.bench.ts;
 * - `httpFloor`: a bare `node:http` server that reads and parses the same request and answers with
 *   the gateway's own SSE body for that turn, canned (same bytes, one `end`), through the same
 *   keep-alive client. No agent, no gateway: what HTTP on this machine costs for this exchange.
 *
 * `gateway − httpFloor − inProcess` is what the gateway itself adds (auth, body, schema, run
 * bookkeeping, event encoding). Wall time per request and this process's CPU per request, with the
 * load average: on a loaded machine, wall time grows with CPU time (a longer request is more often
 * preempted), so CPU is the steadier figure.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Agent, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { ANSWER, cpuMs, gatewayBenchTurn, streamedResponse, type Timing } from "./gateway-support.js";

const ROUNDS = 5;
const TURNS = 40;
const BODY = JSON.stringify({ model: "bench", input: "Tell me about the gateway", stream: true });

const { gateway, storage, inProcess, trimCalls } = await gatewayBenchTurn();
const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });

/** A streamed request to `base` (the gateway or the floor); resolves the timing and the body. */
const streamed = (base: string): Promise<Timing & { text: string }> => streamedResponse(`${base}/responses`, keepAlive, () => BODY);

// The floor answers with a body the gateway produced for this very turn.
const canned = (await streamed(gateway.url)).text;
const floor = createServer((request, response) => {
  const parts: Buffer[] = [];
  request.on("data", (part: Buffer) => parts.push(part));
  request.on("end", () => {
    JSON.parse(Buffer.concat(parts).toString("utf8"));
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no" });
    response.end(canned);
  });
});
await new Promise<void>((resolve) => floor.listen(0, "127.0.0.1", () => resolve()));
const floorUrl = `http://127.0.0.1:${(floor.address() as AddressInfo).port}/v1`;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round4 = (value: number): number => Number(value.toFixed(4));

const ways = { inProcess: (turn: number) => inProcess(turn), gateway: () => streamed(gateway.url), httpFloor: () => streamed(floorUrl) };
type Way = keyof typeof ways;
const names = Object.keys(ways) as Way[];
for (let i = 0; i < 20; i++) for (const name of names) await ways[name](-i);
trimCalls();
const samples = Object.fromEntries(names.map((name) => [name, { first: [] as number[], total: [] as number[], cpu: [] as number[] }])) as Record<Way, { first: number[]; total: number[]; cpu: number[] }>;
for (let round = 1; round <= ROUNDS; round++) {
  const timings = Object.fromEntries(names.map((name) => [name, [] as Timing[]])) as Record<Way, Timing[]>;
  const cpu = Object.fromEntries(names.map((name) => [name, 0])) as Record<Way, number>;
  for (let i = 0; i < TURNS; i++) {
    for (const name of names) {
      const c0 = cpuMs();
      timings[name].push(await ways[name](round * 1000 + i));
      cpu[name] += cpuMs() - c0;
    }
  }
  trimCalls();
  for (const name of names) {
    samples[name].first.push(median(timings[name].map((t) => t.firstMs)));
    samples[name].total.push(median(timings[name].map((t) => t.totalMs)));
    samples[name].cpu.push(cpu[name] / TURNS);
  }
}
keepAlive.destroy();
floor.closeAllConnections();
floor.close();
await gateway.close();
await storage.close();

const figures = Object.fromEntries(names.map((name) => [name, { firstTokenMs: round4(median(samples[name].first)), totalMs: round4(median(samples[name].total)), cpuPerRequestMs: round4(median(samples[name].cpu)) }])) as Record<Way, { firstTokenMs: number; totalMs: number; cpuPerRequestMs: number }>;
const gatewayAdds = {
  totalMs: round4(figures.gateway.totalMs - figures.httpFloor.totalMs - figures.inProcess.totalMs),
  cpuPerRequestMs: round4(figures.gateway.cpuPerRequestMs - figures.httpFloor.cpuPerRequestMs - figures.inProcess.cpuPerRequestMs),
};
const result = {
  bench: "gateway-floor",
  at: new Date().toISOString(),
  node: process.version,
  turn: `offline model, ${ANSWER.length}-character answer; streamed Responses request (${canned.length} bytes of SSE)`,
  rounds: ROUNDS,
  turnsPerRound: TURNS,
  ...figures,
  gatewayAdds,
  note: "gatewayAdds = gateway − httpFloor − inProcess: what the gateway itself costs beyond HTTP and the agent run; the client runs in this process on every HTTP way",
  loadAverage: loadavg().map((value) => Number(value.toFixed(2))),
};
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/gateway-floor.json", `${JSON.stringify(result, null, 2)}\n`);
for (const name of names) console.log(`${name.padEnd(10)} first token ${figures[name].firstTokenMs} ms, total ${figures[name].totalMs} ms, cpu/request ${figures[name].cpuPerRequestMs} ms`);
console.log(`gateway adds ${gatewayAdds.totalMs} ms wall, ${gatewayAdds.cpuPerRequestMs} ms cpu per request beyond HTTP and the run; load average ${result.loadAverage.join(" ")}`);
