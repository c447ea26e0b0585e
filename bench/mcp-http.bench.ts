// `steamharness mcp --http` benchmark (issue 26). Run:
//   npm run bench -- mcp-http
// (a) `tools/call` of a trivial entrypoint over Streamable HTTP, one warm client: ours (the built
//     bin, `mcp <project> --http`, default workers) versus a bare SDK Streamable HTTP server
//     (node:http + StreamableHTTPServerTransport, stateful, one tool answering at once), calls
//     interleaved in blocks of 10 so machine drift hits both alike; p50 and p99 of 200 calls
//     each, and their ratios (goal p50 ≤ 1.3×).
// (b) 32 concurrent clients × 20 back-to-back calls each against ours: completed, p50, p99
//     (report).
// (c) MCP `ping` over the same two connections, same interleaving (100 each): the HTTP layer
//     alone (sessions, Host/Origin checks, body parsing), without the worker process hop every
//     tools/call of ours makes (MCP-5) and the bare server does not (report).
// (d) After (a)–(c), beside them: the bare server against itself plus one child-process IPC
//     round trip per call — the floor of running each call in a worker process (report).
// (e) After (d), beside it: the bare server against itself plus one child-process round trip and
//     one SQLite commit per call (the commit made while the child works, the answer sent once
//     both are in) — the floor of MCP-5 and CFG-2 together, still with no steamharness code
//     (report).
// (f) Last: how long a child process takes to see an IPC message after it has been idle for 1,
//     10 and 30 ms (no HTTP, no MCP) — the machine's wake-up cost that every worker hop pays
//     (report).
// The stdio figures are bench/mcp-cli.bench.ts (unchanged; re-run it beside this one).
// Builds the bin from the current sources into bench/tmp/mcp-http/dist first.
// Results go to bench/results/mcp-http.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { benchClient as client, builtCli, interleaved, startListening, timedCall, wakeLatency, writeBareDurableHopFixture, writeBareHopFixture, writeFixtures } from "./mcp-http-support.js";

const here = dirname(fileURLToPath(import.meta.url));
const work = join(here, "tmp", "mcp-http");
const dataDir = mkdtempSync(join(tmpdir(), "sh-bench-mcp-http-"));
const round = (value: number, digits = 2) => Number(value.toFixed(digits));
/** Nearest-rank percentile. */
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * values.length) - 1)]!;

/** Starts a floor server (`node <args>`), times its tools/call against the bare server's as (a) does, and stops it. */
async function againstBare(bareClient: Client, args: string[], env?: Record<string, string>): Promise<[number[], number[]]> {
  const floor = await startListening(args, env);
  try {
    const floorClient = await client(floor.url);
    const times = await interleaved(floorClient, bareClient, timedCall, { warmUp: 20, blocks: 20 });
    await floorClient.close();
    return times;
  } finally {
    floor.child.kill("SIGTERM");
  }
}

async function main(): Promise<void> {
  const cli = await builtCli(work);
  const { project, bare } = writeFixtures(work);
  const ours = await startListening([cli, "mcp", project, "--http", "--port", "0", "--data-dir", dataDir]);
  const baseline = await startListening([bare]);
  try {
    const [oursClient, bareClient] = [await client(ours.url), await client(baseline.url)];
    const [oursMs, bareMs] = await interleaved(oursClient, bareClient, timedCall, { warmUp: 20, blocks: 20 });
    const timedPing = async (c: Client) => {
      const began = performance.now();
      await c.ping();
      return performance.now() - began;
    };
    const [oursPingMs, barePingMs] = await interleaved(oursClient, bareClient, timedPing, { warmUp: 0, blocks: 10 });
    // (d) The floor of MCP-5's isolation, measured after (a) and (c) and beside them (their
    // definitions unchanged): the bare server again, interleaved the same way against the same
    // bare server whose tool handler makes one round trip to a child process over Node IPC.
    const [floorHopMs, floorBareMs] = await againstBare(bareClient, [writeBareHopFixture(work)]);
    // (e) The floor of MCP-5 and CFG-2 together, measured after (d) and beside it, the same way.
    const [durableHopMs, durableBareMs] = await againstBare(bareClient, [writeBareDurableHopFixture(work)], { DURABLE_FLOOR_DB: join(dataDir, "durable-floor.sqlite") });
    await Promise.all([oursClient.close(), bareClient.close()]);

    const clients = await Promise.all(Array.from({ length: 32 }, () => client(ours.url)));
    const concurrentMs: number[] = [];
    let failed = 0;
    const began = performance.now();
    await Promise.all(
      clients.map(async (c) => {
        for (let i = 0; i < 20; i++) {
          try {
            concurrentMs.push(await timedCall(c));
          } catch {
            failed++;
          }
        }
      }),
    );
    const wallMs = performance.now() - began;
    await Promise.all(clients.map((c) => c.close()));

    const wake = await wakeLatency(work, [1, 10, 30], 300);
    const p50Ratio = percentile(oursMs, 50) / percentile(bareMs, 50);
    /** A floor's p50 beside the bare server's of the same phase, and ours over the floor. */
    const floorFigures = (definition: string, floorKey: string, floorMs: number[], floorBareMs: number[]) => ({
      definition,
      bareSdkP50Ms: round(percentile(floorBareMs, 50)),
      [floorKey]: round(percentile(floorMs, 50)),
      p50Ratio: round(percentile(floorMs, 50) / percentile(floorBareMs, 50)),
      oursOverFloorP50: round(percentile(oursMs, 50) / percentile(floorMs, 50)),
    });
    const results = {
      benchmark: "mcp-http",
      node: process.version,
      built: "bench/tmp/mcp-http/dist (tsup, the bin entry of tsup.config.ts without source maps)",
      toolsCall: {
        definition: "tools/call of a trivial entrypoint over Streamable HTTP, one warm client, 200 calls each in interleaved blocks of 10; ours = mcp --http (default workers 2), bare = SDK StreamableHTTPServerTransport on node:http answering at once",
        oursP50Ms: round(percentile(oursMs, 50)),
        oursP99Ms: round(percentile(oursMs, 99)),
        bareSdkP50Ms: round(percentile(bareMs, 50)),
        bareSdkP99Ms: round(percentile(bareMs, 99)),
        p50Ratio: round(p50Ratio),
        p99Ratio: round(percentile(oursMs, 99) / percentile(bareMs, 99)),
        target: 1.3,
        withinTarget: p50Ratio <= 1.3,
      },
      ping: {
        definition: "MCP ping over the same connections, 100 each in interleaved blocks of 10: the HTTP layer without the worker hop",
        oursP50Ms: round(percentile(oursPingMs, 50)),
        bareSdkP50Ms: round(percentile(barePingMs, 50)),
        p50Ratio: round(percentile(oursPingMs, 50) / percentile(barePingMs, 50)),
      },
      workerHopFloor: floorFigures(
        "measured after toolsCall and ping, beside them: the bare SDK server vs the same server whose tool handler makes one round trip to a child process over Node IPC (JSON), 200 calls each in interleaved blocks of 10 — what MCP-5's worker process costs with no steamharness code",
        "bareWithHopP50Ms",
        floorHopMs,
        floorBareMs,
      ),
      durableHopFloor: floorFigures(
        "measured after workerHopFloor, beside it: the bare SDK server vs the hop server that also commits one ~400-byte row per call to SQLite (better-sqlite3, WAL, synchronous=NORMAL, prepared upsert) while the child works and answers once both are in, 200 calls each in interleaved blocks of 10 — what MCP-5's worker process and CFG-2's snapshot kept with the run cost together with no steamharness code",
        "bareWithHopAndCommitP50Ms",
        durableHopMs,
        durableBareMs,
      ),
      wakeLatency: {
        definition: "measured last: a child process's IPC message delivery (parent send to the child's message event, one monotonic clock) after the child and the parent sat idle for 1, 10 and 30 ms, 300 messages each; p50 in microseconds — the cost of waking a sleeping process on this machine, paid by each of the two messages of every worker hop",
        ...Object.fromEntries(wake.map(({ idleMs, p50Us }) => [`idle${idleMs}msP50Us`, round(p50Us, 0)])),
      },
      loadAverage1m: round(loadavg()[0]!),
      concurrent: {
        definition: "32 concurrent clients × 20 back-to-back tools/call each against mcp --http (default workers 2)",
        completed: concurrentMs.length,
        failed,
        p50Ms: round(percentile(concurrentMs, 50)),
        p99Ms: round(percentile(concurrentMs, 99)),
        wallMs: round(wallMs),
      },
    };
    mkdirSync(join(here, "results"), { recursive: true });
    writeFileSync(join(here, "results", "mcp-http.json"), `${JSON.stringify(results, null, 2)}\n`);
    console.log(JSON.stringify(results, null, 2));
  } finally {
    ours.child.kill("SIGTERM");
    baseline.child.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
