// MCP task benchmark (issue 26, MCP-13). Run:
//   npm run bench -- mcp-tasks
// `tasks/get` of a finished task over Streamable HTTP, one warm SDK client, against
// `steamharness mcp <project> --http` (run from the sources under tsx) with the task store on
// SQLite (the project's data dir) and on PostgreSQL (`--postgres`, when
// STEAMHARNESS_TEST_POSTGRES_URL names a server; a fresh schema, dropped afterwards): 50 warm-up
// calls, then p50 and p95 of 300 calls each. Goals: p95 ≤ 10 ms (SQLite), ≤ 25 ms (PostgreSQL).
// MCP ping on the same connection, interleaved, shows what the HTTP layer alone costs on this
// machine at the time (the load average is recorded beside the figures).
// Each tasks/get reads the row once (and applies the lease and TTL rules); a final row is never
// written again. Results go to bench/results/mcp-tasks.json.
// Beside those figures (which they do not change): the server's CPU per tasks/get and per ping
// (/proc, after the timed calls), and MCP ping p50/p95 of the bare SDK server of
// bench/mcp-http-support.ts from the same client loop — what the HTTP layer costs on this machine
// without any of our code.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import pg from "pg";
import { cpuMs, startListening, writeFixtures } from "./mcp-http-support.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const project = join(root, "test/mcp-http/fixtures/tasks");
const round = (value: number, digits = 2) => Number(value.toFixed(digits));
/** Nearest-rank percentile. */
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * values.length) - 1)]!;

function startServer(args: string[]): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "src/cli.ts"), "mcp", project, "--http", "--port", "0", ...args], { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = stderr.match(/listening on (http:\/\/\S+)/);
      if (match) resolve({ url: new URL(match[1]!), child });
    });
    child.once("exit", (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
}

async function measure(label: string, args: string[]) {
  const { url, child } = await startServer(args);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(url));
  try {
    const { task } = await client.request({ method: "tools/call", params: { name: "quick", arguments: { text: "x" }, task: { ttl: 600_000 } } }, CreateTaskResultSchema);
    await client.request({ method: "tasks/result", params: { taskId: task.taskId } }, CallToolResultSchema);
    const get = () => client.request({ method: "tasks/get", params: { taskId: task.taskId } }, GetTaskResultSchema);
    for (let i = 0; i < 50; i++) await get();
    const times: number[] = [];
    const pings: number[] = [];
    // Interleaved in blocks of 10 with MCP ping on the same connection (the HTTP layer alone).
    for (let block = 0; block < 30; block++) {
      for (const [call, into] of [[get, times], [() => client.ping(), pings]] as const) {
        for (let i = 0; i < 10; i++) {
          const started = performance.now();
          await call();
          into.push(performance.now() - started);
        }
      }
    }
    // CPU of the server process per call, after the timed calls (load-independent).
    const cpuPer = async (call: () => Promise<unknown>, n = 200) => {
      const before = cpuMs(child.pid!);
      for (let i = 0; i < n; i++) await call();
      return round((cpuMs(child.pid!) - before) / n, 3);
    };
    const serverCpuMs = { tasksGet: await cpuPer(get), ping: await cpuPer(() => client.ping()) };
    const figures = { calls: times.length, p50Ms: round(percentile(times, 50)), p95Ms: round(percentile(times, 95)), pingP50Ms: round(percentile(pings, 50)), pingP95Ms: round(percentile(pings, 95)), serverCpuPerCallMs: serverCpuMs };
    console.log(`${label}: tasks/get p50 ${figures.p50Ms} ms, p95 ${figures.p95Ms} ms; ping on the same connection p50 ${figures.pingP50Ms} ms, p95 ${figures.pingP95Ms} ms`);
    return figures;
  } finally {
    await client.close().catch(() => undefined);
    child.kill("SIGTERM");
  }
}

/** MCP ping on the bare SDK server (no project, no task store), timed like the calls above. */
async function barePing() {
  const { bare } = writeFixtures(join(here, "tmp", "mcp-tasks"));
  const { url, child } = await startListening([bare]);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(url));
  try {
    for (let i = 0; i < 50; i++) await client.ping();
    const pings: number[] = [];
    for (let i = 0; i < 300; i++) {
      const started = performance.now();
      await client.ping();
      pings.push(performance.now() - started);
    }
    const before = { server: cpuMs(child.pid!), client: process.cpuUsage() };
    for (let i = 0; i < 200; i++) await client.ping();
    const clientCpu = process.cpuUsage(before.client);
    // The bench process is the client: its own CPU per ping shows what that side costs.
    const figures = {
      pingP50Ms: round(percentile(pings, 50)),
      pingP95Ms: round(percentile(pings, 95)),
      serverCpuPerPingMs: round((cpuMs(child.pid!) - before.server) / 200, 3),
      clientCpuPerPingMs: round((clientCpu.user + clientCpu.system) / 1000 / 200, 3),
    };
    console.log(`bare SDK server: ping p50 ${figures.pingP50Ms} ms, p95 ${figures.pingP95Ms} ms`);
    return figures;
  } finally {
    await client.close().catch(() => undefined);
    child.kill("SIGTERM");
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "sh-bench-mcp-tasks-"));
const results: Record<string, unknown> = { loadAverage: loadavg().map((value) => round(value)) };
try {
  const sqlite = await measure("SQLite", ["--data-dir", join(dataDir, "sqlite")]);
  results.sqlite = { ...sqlite, goalP95Ms: 10, met: sqlite.p95Ms <= 10 };
  const url = process.env.STEAMHARNESS_TEST_POSTGRES_URL;
  if (url) {
    const schema = `sh_bench_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
    try {
      const postgres = await measure("PostgreSQL", ["--data-dir", join(dataDir, "pg"), "--postgres", url, "--postgres-schema", schema]);
      results.postgres = { ...postgres, goalP95Ms: 25, met: postgres.p95Ms <= 25 };
    } finally {
      const pool = new pg.Pool({ connectionString: url });
      await pool.query(`drop schema if exists "${schema}" cascade`).finally(() => pool.end());
    }
  } else results.postgres = { skipped: "STEAMHARNESS_TEST_POSTGRES_URL is not set" };
  results.bareSdkPing = { definition: "MCP ping on the bare SDK Streamable HTTP server of bench/mcp-http-support.ts, one warm client, 50 warm-up then 300 timed; then 200 more for the server's CPU per ping (/proc) and the client's (this bench process, process.cpuUsage)", ...(await barePing()) };
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
mkdirSync(join(here, "results"), { recursive: true });
writeFileSync(join(here, "results", "mcp-tasks.json"), `${JSON.stringify({ ...results, at: new Date().toISOString() }, null, 2)}\n`);
process.exit(0);
