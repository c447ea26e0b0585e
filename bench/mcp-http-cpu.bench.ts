/**
 * CPU per `tools/call` over Streamable HTTP, split by process (the `mcp --http` host, its
 * workers, and a bare SDK server answering the same call at once), read from /proc (Linux). It
 * explains the wall-time ratio of mcp-http (`toolsCall.p50Ratio`), which a loaded machine
 * inflates: CPU per call does not depend on the load. Builds the bin and the fixtures like
 * mcp-http does (bench/mcp-http-support.ts; its own copy, bench/tmp/mcp-http-cpu). Beside them,
 * `modern`: the same for a stateless 2026-07-28 tools/call (a v2 client pinned to the revision)
 * against mcp-http's bare v2 server — the CPU side of `modernToolsCall.p50Ratio`.
 * Results go to bench/results/mcp-http-cpu.json.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { modernClient, writeBareV2Fixture } from "./mcp-http-modern-support.js";
import { builtCli, children, cpuSnapshot, startListening, writeFixtures } from "./mcp-http-support.js";

const here = dirname(fileURLToPath(import.meta.url));
const work = join(here, "tmp/mcp-http-cpu");
const CALLS = 400;
const snapshot = (pid: number) => cpuSnapshot([pid, ...children(pid)]);

/** CPU ms per call of `CALLS` sequential tools/call (or pings): the server's main process and its children. */
async function measure(url: URL, pid: number, what: "tools/call" | "ping" | "modern" = "tools/call") {
  const client = what === "modern" ? await modernClient(url) : new Client({ name: "mcp-http-cpu-bench", version: "0.0.0" });
  if (what !== "modern") {
    await (client as Client).connect(new StreamableHTTPClientTransport(url));
    await client.listTools();
  }
  const call = async () => {
    if (what === "ping") return void (await client.ping());
    const result = await client.callTool({ name: "ping", arguments: {} });
    if (result.isError) throw new Error(`call failed: ${JSON.stringify(result)}`);
  };
  for (let i = 0; i < 40; i++) await call();
  const before = snapshot(pid);
  for (let i = 0; i < CALLS; i++) await call();
  let host = 0;
  let workers = 0;
  for (const [p, value] of snapshot(pid)) (p === pid ? (host += value - (before.get(p) ?? 0)) : (workers += value - (before.get(p) ?? 0)));
  await client.close();
  const round = (value: number) => Number((value / CALLS).toFixed(3));
  return { host: round(host), workers: round(workers), total: round(host + workers) };
}

async function main(): Promise<void> {
  rmSync(work, { recursive: true, force: true });
  const cli = await builtCli(work);
  const { project, bare } = writeFixtures(work);
  const ours = await startListening([cli, "mcp", project, "--http", "--port", "0", "--data-dir", join(work, "data")]);
  const baseline = await startListening([bare]);
  const bareV2 = await startListening([writeBareV2Fixture(work)]);
  try {
    const oursCpu = await measure(ours.url, ours.child.pid!);
    const bareCpu = await measure(baseline.url, baseline.child.pid!);
    const oursPing = await measure(ours.url, ours.child.pid!, "ping");
    const barePing = await measure(baseline.url, baseline.child.pid!, "ping");
    const oursModern = await measure(ours.url, ours.child.pid!, "modern");
    const bareModern = await measure(bareV2.url, bareV2.child.pid!, "modern");
    const result = {
      benchmark: "mcp-http-cpu",
      node: process.version,
      definition: `CPU ms per tools/call of a trivial entrypoint over Streamable HTTP (${CALLS} sequential calls after 40 warm-up, /proc utime+stime): ours = mcp --http (default workers 2) host process and workers; bare = the SDK server of mcp-http; MCP ping the same way (the HTTP layer alone)`,
      oursCpuPerCallMs: oursCpu,
      bareSdkCpuPerCallMs: bareCpu.host,
      cpuRatio: Number((oursCpu.total / bareCpu.host).toFixed(2)),
      pingCpuPerCallMs: { ours: oursPing.host, bareSdk: barePing.host },
      modern: {
        definition: `measured after the above, beside them: CPU ms per stateless 2026-07-28 tools/call of the same entrypoint by a v2 client pinned to the revision (${CALLS} sequential calls after 40 warm-up, /proc utime+stime); ours = the same mcp --http host and workers, bare = mcp-http's bare v2 server (a fresh low-level Server per request through createMcpHandler)`,
        oursCpuPerCallMs: oursModern,
        bareSdkCpuPerCallMs: bareModern.host,
        cpuRatio: Number((oursModern.total / bareModern.host).toFixed(2)),
      },
      loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
    };
    console.log(JSON.stringify(result, null, 2));
    mkdirSync(join(here, "results"), { recursive: true });
    writeFileSync(join(here, "results/mcp-http-cpu.json"), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    ours.child.kill("SIGTERM");
    baseline.child.kill("SIGTERM");
    bareV2.child.kill("SIGTERM");
  }
}

await main();
