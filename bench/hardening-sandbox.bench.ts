/**
 * Issue 22, first benchmark (SEC-3, SEC-4): the code-mode snippet `return 1+1`, wall time and
 * host CPU per snippet (`process.cpuUsage`, which counts every thread of the process, so the
 * worker threads' CPU is in it), new sandbox (QuickJS in a warm worker thread) against today's
 * (bench/sandbox-baseline.ts: QuickJS on the host's main thread, a fresh wasm module per
 * snippet), measured in the same run, interleaved. Goal: new / today ≤ 1.5× for both.
 * Also reported, not compared: the first snippet of a fresh sandbox (a worker starts), and the
 * longest host event-loop gap while a `for(;;){}` snippet runs 1 s in each.
 * Writes bench/results/hardening.json under the key `sandbox` (other keys are kept).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createQuickJsSandbox } from "../src/adapters/driven/sandbox/quickjs-sandbox.js";
import type { CodeSandbox } from "../src/ports/code-sandbox.js";
import { createBaselineQuickJsSandbox } from "./sandbox-baseline.js";

const ROUNDS = 40;
const limits = { timeoutMs: 30_000, memoryBytes: 64 * 1024 * 1024, maxOutputChars: 20_000 };
const call = async () => ({ ok: true as const, value: null });

async function once(sandbox: CodeSandbox, code = "return 1+1"): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await sandbox.run({ code, functions: [], call, limits });
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (code === "return 1+1" && (!result.ok || result.value !== 2)) throw new Error(`unexpected result ${JSON.stringify(result)}`);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

async function loopGap(sandbox: CodeSandbox): Promise<number> {
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 5);
  await sandbox.run({ code: "for (;;) {}", functions: [], call, limits: { ...limits, timeoutMs: 1_000 } });
  clearInterval(timer);
  return Math.max(gap, performance.now() - last);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

const fresh = createQuickJsSandbox();
const cold = await once(fresh);
await fresh.close?.();

const sandboxes = { new: createQuickJsSandbox(), today: createBaselineQuickJsSandbox() };
for (let i = 0; i < 5; i++) for (const sandbox of Object.values(sandboxes)) await once(sandbox);
const samples = { new: [] as Array<{ wallMs: number; cpuMs: number }>, today: [] as Array<{ wallMs: number; cpuMs: number }> };
for (let i = 0; i < ROUNDS; i++) {
  // Interleaved, alternating which goes first, so load on the machine hits both alike.
  const order = i % 2 === 0 ? (["new", "today"] as const) : (["today", "new"] as const);
  for (const name of order) samples[name].push(await once(sandboxes[name]));
}
const summary = (name: "new" | "today") => ({ wallMsMedian: round(median(samples[name].map((s) => s.wallMs))), cpuMsMean: round(mean(samples[name].map((s) => s.cpuMs))) });
const gaps = { new: round(await loopGap(sandboxes.new), 1), today: round(await loopGap(sandboxes.today), 1) };
await sandboxes.new.close?.();

const measured = { new: summary("new"), today: summary("today") };
const ratio = { wall: round(measured.new.wallMsMedian / measured.today.wallMsMedian, 3), cpu: round(measured.new.cpuMsMean / measured.today.cpuMsMean, 3) };
const sandbox = {
  snippet: "return 1+1",
  rounds: ROUNDS,
  at: new Date().toISOString(),
  node: process.version,
  perSnippet: measured,
  ratio,
  target: 1.5,
  meetsTarget: ratio.wall <= 1.5 && ratio.cpu <= 1.5,
  coldFirstSnippet: { wallMs: round(cold.wallMs, 1), cpuMs: round(cold.cpuMs, 1) },
  eventLoopMaxGapMsDuringForLoop1s: gaps,
};

mkdirSync("bench/results", { recursive: true });
const file = "bench/results/hardening.json";
const existing = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
writeFileSync(file, `${JSON.stringify({ ...existing, bench: "hardening", sandbox }, null, 2)}\n`);
console.log(`return 1+1 per snippet: new ${measured.new.wallMsMedian} ms wall / ${measured.new.cpuMsMean} ms CPU; today ${measured.today.wallMsMedian} ms / ${measured.today.cpuMsMean} ms → wall ${ratio.wall}×, CPU ${ratio.cpu}× (goal ≤ 1.5×)`);
console.log(`first snippet of a fresh sandbox (worker start): ${sandbox.coldFirstSnippet.wallMs} ms wall, ${sandbox.coldFirstSnippet.cpuMs} ms CPU`);
console.log(`longest event-loop gap during a 1 s for(;;){}: new ${gaps.new} ms, today ${gaps.today} ms`);
