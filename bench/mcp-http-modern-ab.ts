/**
 * Before/after of two builds of `mcp --http` on the stateless 2026-07-28 `tools/call` (MCP-17),
 * beside mcp-http's bare v2 server, all three in the same run: a v2 client pinned to the revision
 * per server, 30 warm-up calls each, then `ROUNDS` (10) rounds of `PER` (50) calls to each, the
 * order reversed every other round; p50 of each, its ratio over the bare server's, and CPU ms per
 * call (host and workers, /proc). Not a `*.bench.ts`: it compares builds made beforehand, e.g.
 *   git stash && node --import tsx -e 'import("./bench/mcp-http-support.ts").then((m) => m.builtCli("bench/tmp/ab-old"))' && git stash pop
 *   node --import tsx bench/mcp-http-modern-ab.ts bench/tmp/ab-old/dist/cli.js bench/tmp/ab-new/dist/cli.js
 * Prints one JSON line (with the load average); writes nothing.
 */
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { modernClient, timedModernCall, writeBareV2Fixture } from "./mcp-http-modern-support.js";
import { children, cpuSnapshot, startListening, writeFixtures } from "./mcp-http-support.js";

const work = join(dirname(fileURLToPath(import.meta.url)), "tmp", "mcp-http-modern-ab");
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const PER = Number(process.env.PER ?? 50);
const [before, after] = process.argv.slice(2);
if (!before || !after) throw new Error("usage: node --import tsx bench/mcp-http-modern-ab.ts <before cli.js> <after cli.js>");
const { project } = writeFixtures(work);
const servers: Record<string, Awaited<ReturnType<typeof startListening>>> = {};
try {
  for (const [name, cli] of [["before", before], ["after", after]] as const) {
    rmSync(join(work, `data-${name}`), { recursive: true, force: true });
    servers[name] = await startListening([cli, "mcp", project, "--http", "--port", "0", "--data-dir", join(work, `data-${name}`)]);
  }
  servers.bare = await startListening([writeBareV2Fixture(work)]);
  const names = Object.keys(servers);
  const clients = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await modernClient(servers[name]!.url)] as const)));
  for (const name of names) for (let i = 0; i < 30; i++) await timedModernCall(clients[name]!);
  const cpu: Record<string, number> = {};
  const wall: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const pid = servers[name]!.child.pid!;
      const snapshot = () => cpuSnapshot([pid, ...children(pid)]);
      const start = snapshot();
      for (let i = 0; i < PER; i++) (wall[name] ??= []).push(await timedModernCall(clients[name]!));
      for (const [p, ms] of snapshot()) cpu[name] = (cpu[name] ?? 0) + ms - (start.get(p) ?? 0);
    }
  }
  const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length / 2) - 1]!;
  const result: Record<string, unknown> = { loadAverage: loadavg().map((value) => Number(value.toFixed(2))) };
  for (const name of names) result[name] = { p50Ms: Number(p50(wall[name]!).toFixed(3)), p50RatioOverBare: Number((p50(wall[name]!) / p50(wall.bare!)).toFixed(3)), cpuMsPerCall: Number((cpu[name]! / (ROUNDS * PER)).toFixed(3)) };
  console.log(JSON.stringify(result));
  await Promise.all(Object.values(clients).map((c) => c.close()));
} finally {
  for (const server of Object.values(servers)) server.child.kill("SIGTERM");
}
