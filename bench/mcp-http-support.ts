/**
 * What the `mcp --http` benchmarks share (bench/mcp-http.bench.ts, bench/mcp-http-cpu.bench.ts,
 * bench/mcp-cpu.bench.ts, bench/tenancy.bench.ts): the bin built from the current sources, the
 * trivial workflow project and the bare SDK Streamable HTTP server they compare against, a server
 * started until it prints its URL, warm SDK clients and timed calls interleaved in blocks, and
 * CPU time of processes read from /proc (Linux).
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const TICKS_PER_SECOND = 100;

/**
 * A warm SDK client on `url` (connected, tools listed), sending `headers` with every request.
 *
 * @example
 * const c = await benchClient(server.url, { authorization: `Bearer ${token}` });
 */
export async function benchClient(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const c = new Client({ name: "mcp-http-bench", version: "0.0.0" });
  await c.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  await c.listTools();
  return c;
}

/**
 * Milliseconds of one `tools/call` of the trivial project's `ping`; throws when the call fails.
 *
 * @example
 * const ms = await timedCall(await benchClient(server.url));
 */
export async function timedCall(c: Client): Promise<number> {
  const began = performance.now();
  const result = await c.callTool({ name: "ping", arguments: {} });
  if (result.isError) throw new Error(`call failed: ${JSON.stringify(result)}`);
  return performance.now() - began;
}

/**
 * `time` of `first` and of `second`, interleaved: `warmUp` pairs of calls made side by side and
 * not kept, then `blocks` blocks of 10 calls to each, `first` leading the even blocks and
 * `second` the odd ones, so machine drift hits both alike.
 *
 * @example
 * const [oursMs, bareMs] = await interleaved(oursClient, bareClient, timedCall, { warmUp: 20, blocks: 20 });
 */
export async function interleaved<T>(first: T, second: T, time: (target: T) => Promise<number>, { warmUp, blocks }: { warmUp: number; blocks: number }): Promise<[number[], number[]]> {
  for (let i = 0; i < warmUp; i++) await Promise.all([time(first), time(second)]);
  const firstMs: number[] = [];
  const secondMs: number[] = [];
  for (let block = 0; block < blocks; block++) {
    const order: Array<[T, number[]]> = block % 2 === 0 ? [[first, firstMs], [second, secondMs]] : [[second, secondMs], [first, firstMs]];
    for (const [target, into] of order) for (let i = 0; i < 10; i++) into.push(await time(target));
  }
  return [firstMs, secondMs];
}

/** Builds the bin entry of tsup.config.ts (no source maps) into `<work>/dist`; the path of its cli.js. */
export async function builtCli(work: string): Promise<string> {
  const outDir = join(work, "dist");
  const { build } = await import("tsup");
  const configs = (await import("../tsup.config.js")).default as unknown as Array<Record<string, unknown> & { entry: Record<string, string> }>;
  // The bin and the workers it starts are one build each (ARCH-12), all written to `outDir`.
  const bins = configs.filter((config) => ["cli", "workflow-worker", "sandbox-worker"].some((name) => name in config.entry));
  rmSync(outDir, { recursive: true, force: true });
  for (const bin of bins) await build({ ...bin, outDir, clean: false, silent: true, config: false, sourcemap: false });
  return join(outDir, "cli.js");
}

/** Source of the bare SDK server: node:http + StreamableHTTPServerTransport, one tool answering at once. */
const BARE_SERVER = `import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
const sessions = new Map();
function newServer() {
  const server = new Server({ name: "bare", version: "0.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "ping", inputSchema: { type: "object", properties: {}, additionalProperties: false } }] }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text", text: "pong" }], structuredContent: { pong: true } }));
  return server;
}
const http = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const parsed = body ? JSON.parse(body) : undefined;
  const id = req.headers["mcp-session-id"];
  let transport = id ? sessions.get(id) : undefined;
  if (!transport && isInitializeRequest(parsed)) {
    transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sid) => sessions.set(sid, transport) });
    await newServer().connect(transport);
  }
  if (!transport) return res.writeHead(400).end();
  await transport.handleRequest(req, res, parsed);
});
http.listen(0, "127.0.0.1", () => process.stderr.write("listening on http://127.0.0.1:" + http.address().port + "/mcp\\n"));
`;

/**
 * Source of the bare SDK server with one process hop per call: the same server as the bare one,
 * whose tool handler sends the call to a child process over Node's IPC channel (JSON
 * serialization) and answers with the child's reply — the floor of MCP-5's isolation (every run
 * in a worker process) with no steamharness code.
 */
const BARE_HOP_SERVER = BARE_SERVER.replace(
  `const sessions = new Map();`,
  `import { fork } from "node:child_process";
const sessions = new Map();
const worker = fork(new URL("./bare-hop-worker.mjs", import.meta.url), [], { serialization: "json", stdio: ["ignore", "ignore", "inherit", "ipc"] });
const pending = new Map();
let nextId = 0;
worker.on("message", (reply) => { pending.get(reply.id)?.(reply.result); pending.delete(reply.id); });
const hop = (args) => new Promise((resolve) => { const id = nextId++; pending.set(id, resolve); worker.send({ id, args }); });`,
).replace(
  `async () => ({ content: [{ type: "text", text: "pong" }], structuredContent: { pong: true } })`,
  `async (request) => { const result = await hop(request.params.arguments ?? {}); return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result }; }`,
);
const BARE_HOP_WORKER = `process.on("message", (message) => process.send({ id: message.id, result: { pong: true } }));\n`;

/**
 * Source of the bare SDK server with a process hop and one SQLite commit per call: the hop server
 * whose handler, once the call is on its way to the child, upserts one ~400-byte row keyed by a
 * fresh id (better-sqlite3, WAL, synchronous=NORMAL, a prepared statement) and answers when both
 * the commit and the child's reply are in — what MCP-5 (a worker process) and CFG-2 (the run's
 * configuration snapshot kept with the run before its answer) cost together with no steamharness
 * code. The database is the file named by the `DURABLE_FLOOR_DB` environment variable.
 */
const BARE_DURABLE_HOP_SERVER = BARE_HOP_SERVER.replace(
  `const pending = new Map();`,
  `import Database from "better-sqlite3";
const db = new Database(process.env.DURABLE_FLOOR_DB);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.exec("CREATE TABLE IF NOT EXISTS run_values (project_id TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (project_id, name))");
const upsert = db.prepare("INSERT INTO run_values VALUES (?, ?, ?, ?) ON CONFLICT (project_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at");
const snapshot = JSON.stringify({ version: 1, projectId: "44444444-4444-4444-8444-444444444444", configurationId: null, configurationName: null, configurationRevision: 0, projectRevision: 0, takenAt: 0, values: {}, STEAMHARNESS_AGENT_MODELS: [], agentModelPolicy: { allowThirdParty: true } });
let runs = 0;
const pending = new Map();`,
).replace(
  `const result = await hop(request.params.arguments ?? {});`,
  `const replied = hop(request.params.arguments ?? {}); upsert.run("44444444-4444-4444-8444-444444444444", "run-snapshot:" + process.pid + "-" + runs++, snapshot, Date.now()); const result = await replied;`,
);

/**
 * Writes the durable hop server (and the hop child) under `work`; returns the server's path.
 * Start it with `DURABLE_FLOOR_DB` set to a fresh database file.
 */
export function writeBareDurableHopFixture(work: string): string {
  writeBareHopFixture(work);
  const server = join(work, "bare-durable-hop-http-server.mjs");
  writeFileSync(server, BARE_DURABLE_HOP_SERVER);
  return server;
}

/** Writes the bare server with a process hop per call (and its child) under `work`; returns the server's path. */
export function writeBareHopFixture(work: string): string {
  mkdirSync(work, { recursive: true });
  const server = join(work, "bare-hop-http-server.mjs");
  writeFileSync(server, BARE_HOP_SERVER);
  writeFileSync(join(work, "bare-hop-worker.mjs"), BARE_HOP_WORKER);
  return server;
}

/** The child of {@link wakeLatency}: answers each message with the monotonic time it arrived. */
const WAKE_CHILD = `process.on("message", () => process.send({ at: Number(process.hrtime.bigint()) / 1000 }));\n`;

/**
 * How long a forked child takes to see an IPC message after sitting idle for each of `idleMs`:
 * the p50, in microseconds, of `count` sends timed from the parent's send to the child's
 * `message` event (one monotonic clock for both processes).
 */
export async function wakeLatency(work: string, idleMs: number[], count: number): Promise<Array<{ idleMs: number; p50Us: number }>> {
  mkdirSync(work, { recursive: true });
  const path = join(work, "wake-child.mjs");
  writeFileSync(path, WAKE_CHILD);
  const child = fork(path, [], { serialization: "json", stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const now = () => Number(process.hrtime.bigint()) / 1000;
  const once = (sentAt: number) => new Promise<number>((resolve) => child.once("message", (reply: { at: number }) => resolve(reply.at - sentAt)));
  const results: Array<{ idleMs: number; p50Us: number }> = [];
  try {
    for (const idle of idleMs) {
      const delays: number[] = [];
      for (let i = 0; i < count; i++) {
        await new Promise((resolve) => setTimeout(resolve, idle));
        const sentAt = now();
        const arrived = once(sentAt);
        child.send({ i });
        delays.push(await arrived);
      }
      delays.sort((a, b) => a - b);
      results.push({ idleMs: idle, p50Us: delays[Math.floor(delays.length / 2)]! });
    }
  } finally {
    child.kill("SIGTERM");
  }
  return results;
}

/** Writes the trivial workflow project (`ping`) and the bare server under `work`. */
export function writeFixtures(work: string): { project: string; bare: string } {
  const project = join(work, "project");
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ type: "module", id: "44444444-4444-4444-8444-444444444444", projectType: "workflow", main: "workflow.mjs" }));
  writeFileSync(join(project, "workflow.mjs"), `export default { entrypoints: { ping: { title: "Ping", run: () => ({ pong: true }) } } };\n`);
  const bare = join(work, "bare-http-server.mjs");
  writeFileSync(bare, BARE_SERVER);
  return { project, bare };
}

/** Starts `node <args>` in the repository and resolves once it prints `listening on <url>` on stderr. */
export function startListening(args: string[], env?: Record<string, string>): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"], ...(env ? { env: { ...process.env, ...env } } : {}) });
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve({ url: new URL(match[1]!), child });
    });
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}

/** CPU ms (user + system) a process has used, from /proc/<pid>/stat. */
export const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
};

/** A process's direct children, from /proc (none when it has ended). */
export const children = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/** CPU ms of each of `pids` that still runs. */
export const cpuSnapshot = (pids: number[]): Map<number, number> => new Map(pids.flatMap((p) => { try { return [[p, cpuMs(p)] as [number, number]]; } catch { return []; } }));
