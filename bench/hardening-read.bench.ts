// Coding-tool `read` benchmark (SEC-1, SEC-2; issue 22). Run:
//   npm run bench -- hardening-read      (or: node --import tsx bench/hardening-read.bench.ts)
// Wall time and CPU of the read tool on a 1 MB text file (10,000 lines of 100 bytes), the
// confined, streaming implementation versus today's (bench/hardening-read-baseline.ts: resolve,
// stat, read the whole file, split), measured in the same process in interleaved rounds (median
// of 15 rounds of 100 calls each). Cases: the first page (the default: 2000 lines), the last 100
// lines (offset 9901: the new read scans the whole file), and one 1 MB line (cut at 256 KB).
// Target: new / today ≤ 1.2 for each of these. Reported too, without a target: a 1 KB file, where
// the fixed cost of the checks (directory open, descriptor check, lstat, fstat) shows most. Results go to bench/results/hardening.json under the
// key `read` (other keys of that file, e.g. `sandbox`, are kept).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createCodingTools, createPathGuard } from "../src/adapters/driven/coding-tools/index.js";
import { baselineRead } from "./hardening-read-baseline.js";

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = 15;
const CALLS = 100;
const TARGET = 1.2;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number, digits = 3) => Number(value.toFixed(digits));

const workdir = mkdtempSync(join(tmpdir(), "bench-hardening-read-"));
writeFileSync(join(workdir, "lines.txt"), Array.from({ length: 10_000 }, (_, i) => `${String(i).padStart(5, "0")} ${"x".repeat(93)}`).join("\n"));
writeFileSync(join(workdir, "one-line.txt"), "y".repeat(1024 * 1024));
writeFileSync(join(workdir, "small.txt"), Array.from({ length: 10 }, (_, i) => `${String(i).padStart(5, "0")} ${"x".repeat(93)}`).join("\n"));
const guard = createPathGuard({ workdir });
const read = createCodingTools({ workdir }).find((tool) => tool.name === "read")!;
const readNew = async (args: { path: string; offset?: number; limit?: number }) => (await read.execute("bench", args)).content[0]!.text;

const cases = {
  firstPage: { path: "lines.txt" },
  lastLines: { path: "lines.txt", offset: 9901, limit: 100 },
  oneLongLine: { path: "one-line.txt" },
  smallFile: { path: "small.txt" },
} satisfies Record<string, { path: string; offset?: number; limit?: number }>;
type CaseName = keyof typeof cases;
const impls = {
  today: (args: { path: string; offset?: number; limit?: number }) => baselineRead(guard, args.path, args.offset, args.limit),
  confined: readNew,
};
type ImplName = keyof typeof impls;

/** Wall and CPU milliseconds per call over CALLS calls. */
async function sample(impl: ImplName, name: CaseName): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await impls[impl](cases[name]);
  const wall = (performance.now() - started) / CALLS;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 / CALLS };
}

async function main(): Promise<void> {
  // Same content from both (apart from the truncation note's wording), checked once.
  for (const name of Object.keys(cases) as CaseName[]) {
    const [a, b] = [await impls.today(cases[name]), await impls.confined(cases[name])];
    if (a.split("\n\n[truncated")[0] !== b.split("\n\n[truncated")[0]) throw new Error(`${name}: the implementations disagree`);
  }
  const samples: Record<string, { wall: number[]; cpu: number[] }> = {};
  const names = Object.keys(cases) as CaseName[];
  const order: Array<[ImplName, CaseName]> = names.flatMap((name) => (["today", "confined"] as const).map((impl) => [impl, name] as [ImplName, CaseName]));
  for (const [impl, name] of order) await sample(impl, name); // warm-up, not counted
  const loadBefore = loadavg()[0]!;
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < order.length; j++) {
      const [impl, name] = order[(r + j) % order.length]!;
      const { wall, cpu } = await sample(impl, name);
      const key = `${impl}.${name}`;
      samples[key] ??= { wall: [], cpu: [] };
      samples[key].wall.push(wall);
      samples[key].cpu.push(cpu);
    }
  }
  const figure = (name: CaseName, target: number | undefined = TARGET) => {
    const today = { wallMs: round(median(samples[`today.${name}`]!.wall)), cpuMs: round(median(samples[`today.${name}`]!.cpu)) };
    const confined = { wallMs: round(median(samples[`confined.${name}`]!.wall)), cpuMs: round(median(samples[`confined.${name}`]!.cpu)) };
    const ratio = round(confined.wallMs / today.wallMs, 2);
    const goal = target === undefined ? {} : { target, withinTarget: ratio <= target };
    return { args: cases[name], today, confined, wallRatio: ratio, cpuRatio: round(confined.cpuMs / today.cpuMs, 2), ...goal };
  };
  const result = {
    benchmark: "hardening-read",
    node: process.version,
    definition: `coding-tool read of a 1 MB file, ms per call: median of ${ROUNDS} interleaved rounds of ${CALLS} calls; today = bench/hardening-read-baseline.ts (main at f1f6d79), confined = createCodingTools' read (SEC-1, SEC-2), same process`,
    loadAverage1m: { before: round(loadBefore, 2), after: round(loadavg()[0]!, 2) },
    firstPage: figure("firstPage"),
    lastLines: figure("lastLines"),
    oneLongLine: figure("oneLongLine"),
    smallFile1KB: figure("smallFile", undefined),
  };
  const out = join(here, "results", "hardening.json");
  mkdirSync(dirname(out), { recursive: true });
  // Read-modify-write: other benchmarks keep their own keys (e.g. `sandbox`) in this file.
  const existing = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>) : {};
  writeFileSync(out, `${JSON.stringify({ ...existing, read: result }, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
}

try {
  await main();
} finally {
  rmSync(workdir, { recursive: true, force: true });
}
