// `steamharness mcp` benchmark (issue 4 item 11). Run:
//   node --import tsx bench/mcp-cli.bench.ts
// (a) Spawn → `initialized` of `steamharness mcp` (the built bin) versus a bare SDK stdio Server
//     with one tool, both plain `node <script>` processes, interleaved rounds (target ≤ 1.5×).
// (b) Per-call time of a trivial entrypoint (warm worker pool: each call still gets its own
//     fresh worker process) versus spawning `node -e 0` (report; target ≤ 2.5×).
// Builds the bin from the current sources into bench/tmp/mcp-cli/dist first.
// Results go to bench/results/mcp-cli.json.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const work = join(here, "tmp", "mcp-cli");
const dataDir = mkdtempSync(join(tmpdir(), "sh-bench-mcp-cli-"));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

// Always builds the bin from the current sources (dist/ may be stale while developing).
async function builtCli(): Promise<{ cli: string; from: string }> {
  const outDir = join(work, "dist");
  const { build } = await import("tsup");
  await build({
    entry: { cli: "src/cli.ts", "workflow-worker": "src/adapters/workflow/worker-main.ts" },
    format: ["esm"],
    target: "node20",
    outDir,
    banner: { js: "#!/usr/bin/env node" },
    external: ["@mariozechner/pi-ai", "better-sqlite3"],
    clean: true,
    silent: true,
    config: false,
  });
  return { cli: join(outDir, "cli.js"), from: "bench/tmp/mcp-cli/dist (tsup, same options as the bin entry of tsup.config.ts)" };
}

function writeFixtures(): { project: string; bare: string } {
  const project = join(work, "project");
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ type: "module", id: "33333333-3333-4333-8333-333333333333", projectType: "workflow", main: "workflow.mjs" }),
  );
  writeFileSync(join(project, "workflow.mjs"), `export default { entrypoints: { ping: { title: "Ping", run: () => ({ pong: true }) } } };\n`);
  // The baseline lives inside the repo so it resolves the same node_modules.
  const bare = join(work, "bare-server.mjs");
  writeFileSync(
    bare,
    `import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const server = new Server({ name: "bare", version: "0.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "ping", inputSchema: { type: "object", properties: {}, additionalProperties: false } }] }));
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text", text: "pong" }], structuredContent: { pong: true } }));
await server.connect(new StdioServerTransport());
`,
  );
  return { project, bare };
}

async function connect(args: string[]): Promise<{ client: Client; ms: number }> {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: root, stderr: "ignore" });
  const client = new Client({ name: "mcp-cli-bench", version: "0.0.0" });
  const start = performance.now();
  await client.connect(transport); // resolves after initialize → initialized
  return { client, ms: performance.now() - start };
}

async function startup(rounds: number, ours: string[], bare: string[]): Promise<{ oursMs: number; bareMs: number }> {
  const oursMs: number[] = [];
  const bareMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const [args, into] of (r % 2 === 0 ? [[ours, oursMs], [bare, bareMs]] : [[bare, bareMs], [ours, oursMs]]) as [string[], number[]][]) {
      const { client, ms } = await connect(args);
      into.push(ms);
      await client.close();
    }
  }
  return { oursMs: median(oursMs), bareMs: median(bareMs) };
}

function spawnNodeE0(): Promise<number> {
  return new Promise((resolveRun, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", () => resolveRun(performance.now() - start));
  });
}

async function perCall(calls: number, ours: string[]): Promise<{ callMs: number; nodeMs: number }> {
  const { client } = await connect(ours);
  await client.listTools(); // the warm worker has loaded the project
  const callMs: number[] = [];
  const nodeMs: number[] = [];
  const pause = () => new Promise((r) => setTimeout(r, 400));
  for (let i = 0; i < calls; i++) {
    // Pause like a client between calls would, so the pool refills (a fresh warm worker per
    // call), and so the replacement worker's start does not slow the `node -e 0` baseline.
    await pause();
    const start = performance.now();
    const result = await client.callTool({ name: "ping", arguments: {} });
    callMs.push(performance.now() - start);
    if (result.isError) throw new Error(JSON.stringify(result.structuredContent));
    await pause();
    nodeMs.push(await spawnNodeE0());
  }
  await client.close();
  return { callMs: median(callMs), nodeMs: median(nodeMs) };
}

const { cli, from } = await builtCli();
const { project, bare } = writeFixtures();
const ours = [cli, "mcp", project, "--data-dir", dataDir];
await startup(1, ours, [bare]); // warm the OS file cache for both
const start = await startup(7, ours, [bare]);
const call = await perCall(11, ours);
const startupRatio = start.oursMs / start.bareMs;
const callRatio = call.callMs / call.nodeMs;
const results = {
  benchmark: "mcp-cli",
  node: process.version,
  built: from,
  startup: { steamharnessMcpMs: round(start.oursMs), bareSdkServerMs: round(start.bareMs), ratio: round(startupRatio), target: 1.5, withinTarget: startupRatio <= 1.5 },
  perCall: { trivialEntrypointMs: round(call.callMs), nodeE0SpawnMs: round(call.nodeMs), ratio: round(callRatio), target: 2.5, withinTarget: callRatio <= 2.5 },
};
mkdirSync(join(here, "results"), { recursive: true });
writeFileSync(join(here, "results", "mcp-cli.json"), `${JSON.stringify(results, null, 2)}\n`);
rmSync(dataDir, { recursive: true, force: true });
console.log(`spawn → initialized: steamharness mcp ${results.startup.steamharnessMcpMs} ms vs bare SDK server ${results.startup.bareSdkServerMs} ms = ${results.startup.ratio}× (target ≤ 1.5×)`);
console.log(`per call: trivial entrypoint ${results.perCall.trivialEntrypointMs} ms vs node -e 0 ${results.perCall.nodeE0SpawnMs} ms = ${results.perCall.ratio}× (target ≤ 2.5×)`);
