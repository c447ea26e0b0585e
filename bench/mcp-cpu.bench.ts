/**
 * CPU per trivial `steamharness mcp` call, split by process (host, workers, the client), read
 * from /proc (Linux). It explains the parallel ratio of mcp-cli (4 calls / 1 call, target ≤ 1.5×):
 * four calls need at least (4 × CPU per call) / cores of wall time, whatever the pool does, so
 * `floorRatio` = that bound / one hot call's wall time is the best ratio this machine allows.
 * The same is measured for the relay of bench/mcp-relay.ts beside it, the CPU floor of any design
 * that runs each call in a worker process.
 * Uses the bin mcp-cli.bench.ts builds (bench/tmp/mcp-cli): run it after that one (`npm run bench`
 * runs them in that order). Results go to bench/results/mcp-cpu.json.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { children, cpuSnapshot } from "./mcp-http-support.js";
import { writeRelayServer } from "./mcp-relay.js";

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "tmp/mcp-cli/dist/cli.js");
const project = join(here, "tmp/mcp-cli/project");
if (!existsSync(cli) || !existsSync(project)) throw new Error("run `npm run bench -- mcp-cli` first: this benchmark uses its build and project");
const CALLS = 200;
const tree = (pid: number): number[] => [pid, ...children(pid).flatMap(tree)];
const snapshot = (pid: number): Map<number, number> => cpuSnapshot(tree(pid));

/** The measurement for one server: warm every worker, then CALLS calls one at a time and in batches of 4. */
async function server(args: string[]) {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  const call = () => client.callTool({ name: "ping", arguments: {} });
  for (let i = 0; i < 40; i++) await Promise.all([call(), call(), call(), call()]); // every worker warm
  const pid = transport.pid!;

  async function measure(width: number) {
    const before = snapshot(pid);
    const client0 = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < CALLS / width; i++) await Promise.all(Array.from({ length: width }, call));
    const wallMs = performance.now() - started;
    const clientUsage = process.cpuUsage(client0);
    let host = 0;
    let workers = 0;
    for (const [p, value] of snapshot(pid)) (p === pid ? (host += value - (before.get(p) ?? 0)) : (workers += value - (before.get(p) ?? 0)));
    const round = (value: number) => Number(value.toFixed(3));
    return { batchWallMs: round(wallMs / (CALLS / width)), cpuPerCallMs: { host: round(host / CALLS), workers: round(workers / CALLS), client: round((clientUsage.user + clientUsage.system) / 1000 / CALLS) } };
  }
  const one = await measure(1);
  const four = await measure(4);
  await client.close();
  return { one, four };
}
const { one, four } = await server([cli, "mcp", project, "--data-dir", mkdtempSync(join(tmpdir(), "sh-bench-mcp-cpu-")), "--workers", "4"]);
// Added beside (the steamharness figures above keep their definition): the same measurement of
// the relay (bench/mcp-relay.ts: an SDK server handing each call to one of 4 idle child
// processes), the CPU a process-per-call design cannot go below.
const relay = await server([writeRelayServer(join(here, "tmp/mcp-cli"), 4)]);
const cores = availableParallelism();
const perCall = four.cpuPerCallMs.host + four.cpuPerCallMs.workers + four.cpuPerCallMs.client;
const results = {
  benchmark: "mcp-cpu",
  definition: `${CALLS} trivial calls one at a time, then in batches of 4 (--workers 4, every worker warm); CPU from /proc per process`,
  node: process.version,
  cores,
  loadAverage1m: loadavg()[0],
  oneAtATime: one,
  batchesOfFour: four,
  hotRatio: Number((four.batchWallMs / one.batchWallMs).toFixed(2)),
  floorRatio: Number(((4 * perCall) / cores / one.batchWallMs).toFixed(2)),
  relay: {
    definition: "the same measurement of bench/mcp-relay.ts (SDK server + 4 idle IPC child processes)",
    oneAtATime: relay.one,
    batchesOfFour: relay.four,
    hotRatio: Number((relay.four.batchWallMs / relay.one.batchWallMs).toFixed(2)),
    floorRatio: Number(((4 * (relay.four.cpuPerCallMs.host + relay.four.cpuPerCallMs.workers + relay.four.cpuPerCallMs.client)) / cores / relay.one.batchWallMs).toFixed(2)),
  },
};
mkdirSync(join(here, "results"), { recursive: true });
writeFileSync(join(here, "results/mcp-cpu.json"), `${JSON.stringify(results, null, 2)}\n`);
console.log(`one call: ${one.batchWallMs} ms wall, CPU host ${one.cpuPerCallMs.host} + workers ${one.cpuPerCallMs.workers} + client ${one.cpuPerCallMs.client} ms`);
console.log(`4 at once: ${four.batchWallMs} ms wall (${results.hotRatio}×), CPU per call host ${four.cpuPerCallMs.host} + workers ${four.cpuPerCallMs.workers} + client ${four.cpuPerCallMs.client} ms`);
console.log(`floor on ${cores} cores: 4 × ${perCall.toFixed(2)} ms / ${cores} = ${((4 * perCall) / cores).toFixed(2)} ms = ${results.floorRatio}× one call`);
console.log(`relay (SDK server + 4 IPC children): one call ${relay.one.batchWallMs} ms, 4 at once ${relay.four.batchWallMs} ms (${results.relay.hotRatio}×); CPU per call host ${relay.four.cpuPerCallMs.host} + children ${relay.four.cpuPerCallMs.workers} + client ${relay.four.cpuPerCallMs.client} ms; floor ${results.relay.floorRatio}×`);
