/**
 * The parallel-call floor of this machine (MCP-9, issue 16): how far below mcp-cli's parallel
 * ratio (4 concurrent trivial calls / 1 call, target ≤ 1.5×) any MCP server can get here, with
 * and without a process of its own per call. mcp-cli.bench.ts keeps its definition (e); this one
 * applies the same timing to three servers in the same run:
 *
 * - `bareSdk`: the MCP SDK's low-level stdio `Server` answering `ping` in its own process (no
 *   isolation at all: the floor of the protocol and the client on these cores);
 * - `relay`: the same server handing every call to one of 4 idle child processes that answer at
 *   once (bench/mcp-relay.ts) — the cheapest design that still runs each call in a worker
 *   process (MCP-5);
 * - `steamharness`: `steamharness mcp --workers 4` on mcp-cli's trivial project.
 *
 * Timing, as in mcp-cli (e): pause 3 s, start the clock, send N calls at once, stop when all have
 * answered; N = 1 then N = 4; the ratio is median(4 calls) / median(1 call). The three servers
 * are started up front and measured round by round in turn (interleaved, 7 rounds) so drift in
 * the machine's load hits all three alike. Uses the bin mcp-cli.bench.ts builds
 * (bench/tmp/mcp-cli): run it after that one (`npm run bench` runs them in that order).
 * Results go to bench/results/mcp-floor.json.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { writeRelayServer } from "./mcp-relay.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const work = join(here, "tmp/mcp-cli");
const cli = join(work, "dist/cli.js");
const project = join(work, "project");
if (!existsSync(cli) || !existsSync(project)) throw new Error("run `npm run bench -- mcp-cli` first: this benchmark uses its build and project");
const ROUNDS = 7;
const WIDTH = 4;
const PAUSE_MS = 3000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number) => Number(value.toFixed(2));

const relay = writeRelayServer(work, WIDTH);
const bare = join(work, "bare-server.mjs");
if (!existsSync(bare)) throw new Error("run `npm run bench -- mcp-cli` first: this benchmark uses its bare server");

const servers: Array<{ name: "bareSdk" | "relay" | "steamharness"; args: string[] }> = [
  { name: "bareSdk", args: [bare] },
  { name: "relay", args: [relay] },
  { name: "steamharness", args: [cli, "mcp", project, "--data-dir", mkdtempSync(join(tmpdir(), "sh-bench-mcp-floor-")), "--workers", String(WIDTH)] },
];
const clients = new Map<string, Client>();
for (const server of servers) {
  const client = new Client({ name: "mcp-floor-bench", version: "0.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: server.args, cwd: root, stderr: "ignore" }));
  await client.listTools();
  clients.set(server.name, client);
}
const timed = async (client: Client, count: number): Promise<number> => {
  await sleep(PAUSE_MS);
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: count }, () => client.callTool({ name: "ping", arguments: {} })));
  const ms = performance.now() - started;
  for (const result of results) if (result.isError) throw new Error(JSON.stringify(result.structuredContent));
  return ms;
};
await sleep(PAUSE_MS); // steamharness's pool has every worker loaded
const samples = new Map(servers.map((server) => [server.name, { one: [] as number[], many: [] as number[] }]));
for (let r = 0; r < ROUNDS; r++) {
  for (const server of servers) {
    const client = clients.get(server.name)!;
    const into = samples.get(server.name)!;
    into.one.push(await timed(client, 1));
    into.many.push(await timed(client, WIDTH));
  }
}
for (const client of clients.values()) await client.close();

const summary = (name: (typeof servers)[number]["name"]) => {
  const { one, many } = samples.get(name)!;
  return { oneCallMs: round(median(one)), fourCallsMs: round(median(many)), ratio: round(median(many) / median(one)) };
};
const results = {
  benchmark: "mcp-floor",
  definition: `mcp-cli (e) for three servers in one run: pause ${PAUSE_MS / 1000} s, ${WIDTH} concurrent trivial calls vs 1 call, medians of ${ROUNDS} interleaved rounds`,
  node: process.version,
  cores: availableParallelism(),
  loadAverage1m: round(loadavg()[0]!),
  target: 1.5,
  bareSdk: summary("bareSdk"),
  relay: summary("relay"),
  steamharness: summary("steamharness"),
};
mkdirSync(join(here, "results"), { recursive: true });
writeFileSync(join(here, "results/mcp-floor.json"), `${JSON.stringify(results, null, 2)}\n`);
console.log(`${WIDTH} parallel / 1 call on ${results.cores} cores (target ≤ 1.5×):`);
console.log(`  bare SDK server, in process:        ${results.bareSdk.fourCallsMs} / ${results.bareSdk.oneCallMs} ms = ${results.bareSdk.ratio}×`);
console.log(`  SDK server + ${WIDTH} IPC child processes: ${results.relay.fourCallsMs} / ${results.relay.oneCallMs} ms = ${results.relay.ratio}×`);
console.log(`  steamharness mcp --workers ${WIDTH}:       ${results.steamharness.fourCallsMs} / ${results.steamharness.oneCallMs} ms = ${results.steamharness.ratio}×`);
