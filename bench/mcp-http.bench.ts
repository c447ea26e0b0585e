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
// After (f), beside them, the 2026-07-28 revision (issue 48, MCP-17; bench/mcp-http-modern-support.ts):
// (g) `tools/call` by a v2 client pinned to 2026-07-28 (stateless, no session) against ours
//     versus a bare v2 SDK server (low-level `Server`, one tool answering at once, served
//     through `createMcpHandler` on node:http), interleaved as (a); goal p50 ≤ 1.3×.
// (h) A cold call: time to the first result of a fresh client, a 2026-07-28 one (`server/discover`
//     and the call) versus a 2025-11-25 one (`initialize`, `notifications/initialized` and the
//     call), same host, alternating in blocks (report).
// (i) Two hosts of the project on one data dir behind a round-robin proxy (every request to the
//     other host) versus the same proxy in front of one host, one v2 client each, interleaved:
//     errors (must be 0) and the p99 ratio (goal ≤ 1.5×).
// MCP_HTTP_BENCH_SECTIONS=legacy|modern runs (a)–(f) or (g)–(i) alone (both by default); figures
// of the sections not run are kept from bench/results/mcp-http.json.
// The stdio figures are bench/mcp-cli.bench.ts (unchanged; re-run it beside this one).
// Builds the bin from the current sources into bench/tmp/mcp-http/dist first.
// Results go to bench/results/mcp-http.json.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { modernClient, roundRobinProxy, timedModernCall, writeBareV2Fixture } from "./mcp-http-modern-support.js";
import { benchClient as client, builtCli, interleaved, startListening, timedCall, wakeLatency, writeBareDurableHopFixture, writeBareHopFixture, writeFixtures } from "./mcp-http-support.js";

const here = dirname(fileURLToPath(import.meta.url));
const work = join(here, "tmp", "mcp-http");
const dataDir = mkdtempSync(join(tmpdir(), "sh-bench-mcp-http-"));
const round = (value: number, digits = 2) => Number(value.toFixed(digits));
/** Nearest-rank percentile. */
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * values.length) - 1)]!;
/** A tools/call figure of ours against a bare SDK server measured in the same run: p50 and p99 of each, their ratios, the 1.3× target. */
function versusBare(definition: string, oursMs: number[], bareMs: number[]) {
  const p50Ratio = percentile(oursMs, 50) / percentile(bareMs, 50);
  return {
    definition,
    oursP50Ms: round(percentile(oursMs, 50)),
    oursP99Ms: round(percentile(oursMs, 99)),
    bareSdkP50Ms: round(percentile(bareMs, 50)),
    bareSdkP99Ms: round(percentile(bareMs, 99)),
    p50Ratio: round(p50Ratio),
    p99Ratio: round(percentile(oursMs, 99) / percentile(bareMs, 99)),
    target: 1.3,
    withinTarget: p50Ratio <= 1.3,
  };
}
const sections = new Set((process.env.MCP_HTTP_BENCH_SECTIONS ?? "legacy,modern").split(",").map((name) => name.trim()));
const resultsFile = join(here, "results", "mcp-http.json");

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

/** (a)–(f): the 2025-11-25 figures, their definitions unchanged. */
async function legacySections(ours: { url: URL }, bare: string): Promise<Record<string, unknown>> {
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
    /** A floor's p50 beside the bare server's of the same phase, and ours over the floor. */
    const floorFigures = (definition: string, floorKey: string, floorMs: number[], floorBareMs: number[]) => ({
      definition,
      bareSdkP50Ms: round(percentile(floorBareMs, 50)),
      [floorKey]: round(percentile(floorMs, 50)),
      p50Ratio: round(percentile(floorMs, 50) / percentile(floorBareMs, 50)),
      oursOverFloorP50: round(percentile(oursMs, 50) / percentile(floorMs, 50)),
    });
    return {
      toolsCall: versusBare(
        "tools/call of a trivial entrypoint over Streamable HTTP, one warm client, 200 calls each in interleaved blocks of 10; ours = mcp --http (default workers 2), bare = SDK StreamableHTTPServerTransport on node:http answering at once",
        oursMs,
        bareMs,
      ),
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
  } finally {
    baseline.child.kill("SIGTERM");
  }
}

/** Milliseconds from a fresh 2025-11-25 client's `initialize` to its first `tools/call` result; the session is ended after. */
async function coldLegacyCall(url: URL): Promise<number> {
  const began = performance.now();
  const transport = new StreamableHTTPClientTransport(url);
  const c = new Client({ name: "mcp-http-bench-cold", version: "0.0.0" });
  await c.connect(transport);
  await timedCall(c);
  const ms = performance.now() - began;
  await transport.terminateSession();
  await c.close();
  return ms;
}

/** Milliseconds from a fresh 2026-07-28 client's `server/discover` to its first `tools/call` result. */
async function coldModernCall(url: URL): Promise<number> {
  const began = performance.now();
  const c = await modernClient(url);
  await timedModernCall(c);
  const ms = performance.now() - began;
  await c.close();
  return ms;
}

/** (g)–(i): the 2026-07-28 figures (issue 48), with a second host of the project on the same data dir. */
async function modernSections(cli: string, project: string, ours: { url: URL }): Promise<Record<string, unknown>> {
  const loadAverageBefore = loadavg().map((value) => round(value));
  const bare = await startListening([writeBareV2Fixture(work)]);
  const second = await startListening([cli, "mcp", project, "--http", "--port", "0", "--data-dir", dataDir]);
  const twoHosts = await roundRobinProxy([ours.url, second.url]);
  const oneHost = await roundRobinProxy([ours.url]);
  try {
    const [oursClient, bareClient] = [await modernClient(ours.url), await modernClient(bare.url)];
    const [oursMs, bareMs] = await interleaved(oursClient, bareClient, timedModernCall, { warmUp: 20, blocks: 20 });
    await Promise.all([oursClient.close(), bareClient.close()]);

    const cold = { modern: () => coldModernCall(ours.url), legacy: () => coldLegacyCall(ours.url) };
    const [coldModernMs, coldLegacyMs] = await interleaved(cold.modern, cold.legacy, (call) => call(), { warmUp: 3, blocks: 4 });

    const [viaTwo, viaOne] = [await modernClient(twoHosts.url), await modernClient(oneHost.url)];
    const failures = new Map<unknown, number>([[viaTwo, 0], [viaOne, 0]]);
    // A failed call is counted, not timed, so one error cannot hide behind the percentiles.
    const counted = async (c: typeof viaTwo) => {
      try {
        return await timedModernCall(c);
      } catch {
        failures.set(c, failures.get(c)! + 1);
        return Number.NaN;
      }
    };
    const [twoMs, oneMs] = (await interleaved(viaTwo, viaOne, counted, { warmUp: 20, blocks: 50 })).map((times) => times.filter((ms) => !Number.isNaN(ms)));
    await Promise.all([viaTwo.close(), viaOne.close()]);

    const p99Ratio = percentile(twoMs!, 99) / percentile(oneMs!, 99);
    return {
      modernToolsCall: versusBare(
        "measured after the 2025-11-25 sections when both run, beside them: tools/call of the trivial entrypoint by a v2 SDK client pinned to 2026-07-28 (stateless, no session, no initialize), one warm client each, 200 calls each in interleaved blocks of 10; ours = mcp --http (default workers 2), bare = the v2 SDK's low-level Server with one tool answering at once, a fresh one per request through createMcpHandler on node:http",
        oursMs,
        bareMs,
      ),
      modernColdCall: {
        definition: "time to the first tools/call result of a fresh client against ours (same host): 2026-07-28 = a v2 client pinned to the revision (server/discover, then the call); 2025-11-25 = the v1 SDK client (initialize, notifications/initialized, then the call; its session ended after the clock stops); 3 warm-up pairs, then 40 each in alternating blocks of 10",
        modernP50Ms: round(percentile(coldModernMs, 50)),
        modernP99Ms: round(percentile(coldModernMs, 99)),
        legacyP50Ms: round(percentile(coldLegacyMs, 50)),
        legacyP99Ms: round(percentile(coldLegacyMs, 99)),
        p50Ratio: round(percentile(coldModernMs, 50) / percentile(coldLegacyMs, 50)),
      },
      modernTwoHosts: {
        definition: "two mcp --http hosts of the project on one data dir (default workers 2 each) behind a round-robin proxy on node:http written in the bench (each request to the next host, so every request goes to the other host than the one before) vs the same proxy in front of one of them; one v2 client pinned to 2026-07-28 each, 500 calls each (p99 = the 5th slowest) in interleaved blocks of 10 after 20 warm-up pairs; errors = failed calls plus requests the proxy could not forward",
        twoHostsErrors: failures.get(viaTwo)! + twoHosts.errors(),
        oneHostErrors: failures.get(viaOne)! + oneHost.errors(),
        twoHostsP50Ms: round(percentile(twoMs!, 50)),
        twoHostsP99Ms: round(percentile(twoMs!, 99)),
        oneHostP50Ms: round(percentile(oneMs!, 50)),
        oneHostP99Ms: round(percentile(oneMs!, 99)),
        p99Ratio: round(p99Ratio),
        target: 1.5,
        withinTarget: p99Ratio <= 1.5,
      },
      modernLoadAverage: { before: loadAverageBefore, after: loadavg().map((value) => round(value)) },
    };
  } finally {
    await Promise.all([twoHosts.close(), oneHost.close()]);
    bare.child.kill("SIGTERM");
    second.child.kill("SIGTERM");
  }
}

async function main(): Promise<void> {
  const cli = await builtCli(work);
  const { project, bare } = writeFixtures(work);
  const ours = await startListening([cli, "mcp", project, "--http", "--port", "0", "--data-dir", dataDir]);
  try {
    // Sections not run keep their last figures.
    const kept = existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, "utf8")) as Record<string, unknown>) : {};
    const results = {
      ...kept,
      benchmark: "mcp-http",
      node: process.version,
      built: "bench/tmp/mcp-http/dist (tsup, the bin entry of tsup.config.ts without source maps)",
      ...(sections.has("legacy") ? await legacySections(ours, bare) : {}),
      ...(sections.has("modern") ? await modernSections(cli, project, ours) : {}),
    };
    mkdirSync(join(here, "results"), { recursive: true });
    writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
    console.log(JSON.stringify(results, null, 2));
  } finally {
    ours.child.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
