/**
 * Where tracing's CPU goes (issue 27, OBS), beside bench/observability-cpu.bench.ts (whose
 * definition this does not change): the same durable 100-step tool loop and CPU measure, with
 * the telemetry built up one layer at a time (bench/observability-split-loop.ts):
 *   adapter    our adapter over the API's no-op providers (no SDK)
 *   sdk        + the real SDK (batch span processor, meter provider); an exporter that drops
 *   serialize  + the OTLP/HTTP JSON serialization of each batch (bytes dropped)
 *   on         + the OTLP/HTTP exporter to a loopback receiver (= observability-cpu's `on`)
 *   on-noflush like on, without the flush at each run's start (`flushOnRunStart: false`)
 * One process per mode and round, interleaved (the order rotates); each figure is the median of
 * the per-round differences against `off`, and each layer's share the difference of two of those.
 * Then the isolated figure: only the per-step telemetry calls (bench/observability-calls-loop.ts),
 * CPU µs per step in a fresh process (first 100 steps, next 300) and warm (steps 10 000–30 000),
 * median of 3 processes per mode. Beside it, the floor (`floorCallsUsPerStep`): the same spans and
 * metric points made by the bare SDK with no steamharness code (bench/observability-bare-sdk.ts),
 * in the same regimes, interleaved with the adapter's modes (the order rotates), median of
 * OBS_SPLIT_FLOOR_PROCESSES (5) processes per mode — each also yielding to the event loop after
 * every run (`…-yield`), as a host does: without it the batch processor's export never completes
 * during the loop, so it exports one batch and then drops spans once its queue is full (the
 * warm figures above are mostly dropped spans). Writes bench/results/observability-split.json.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOtlpReceiver } from "../test/fixtures/otlp-receiver.js";

const STEPS = 100;
const ROUNDS = Number(process.env.OBS_SPLIT_BENCH_ROUNDS ?? 5);
const RUNS = Number(process.env.OBS_SPLIT_BENCH_RUNS ?? 3);
const MODES = ["off", "adapter", "sdk", "serialize", "on", "on-noflush"] as const;
type Mode = (typeof MODES)[number];

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

const receiver = await startOtlpReceiver();
const root = mkdtempSync(join(tmpdir(), "bench-observability-split-"));

function child(mode: Mode, dir: string): Promise<{ cpuMsPerStep: number }> {
  const [loopMode, flush] = mode === "on-noflush" ? ["on", ["flushOnRunStart=false"]] : [mode, []];
  const args = ["--import", "tsx", join("bench", "observability-split-loop.ts"), loopMode, dir, String(STEPS), String(RUNS), receiver.url, ...flush];
  const proc = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  proc.stdout.on("data", (part: Buffer) => (out += part));
  return new Promise((resolve, reject) => proc.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop()!)) : reject(new Error(`${mode} run exited ${code}`)))));
}

const cpu = Object.fromEntries(MODES.map((mode) => [mode, [] as number[]])) as Record<Mode, number[]>;
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
    for (const mode of order) cpu[mode].push((await child(mode, join(root, `${round}-${mode}`))).cpuMsPerStep);
  }
} finally {
  await receiver.close();
  rmSync(root, { recursive: true, force: true });
}

const CALL_MODES = ["adapter", "sdk", "serialize"] as const;
type Calls = { coldUsPerStep: number; benchUsPerStep: number; warmUsPerStep: number };
type CallsRun = Calls & { exported: number };
function calls(mode: string): Promise<CallsRun> {
  const [loopMode, yielding] = mode.endsWith("-yield") ? [mode.slice(0, -"-yield".length), ["yield"]] : [mode, []];
  const proc = spawn(process.execPath, ["--import", "tsx", join("bench", "observability-calls-loop.ts"), loopMode, ...yielding], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  proc.stdout.on("data", (part: Buffer) => (out += part));
  return new Promise((resolve, reject) => proc.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop()!)) : reject(new Error(`calls ${mode} exited ${code}`)))));
}
const isolated: Record<string, Calls> = {};
for (const mode of CALL_MODES) {
  const results: Calls[] = [];
  for (let i = 0; i < 3; i++) results.push(await calls(mode));
  isolated[mode] = { coldUsPerStep: median(results.map((r) => r.coldUsPerStep)), benchUsPerStep: median(results.map((r) => r.benchUsPerStep)), warmUsPerStep: median(results.map((r) => r.warmUsPerStep)) };
}

const FLOOR_MODES = ["sdk", "bare-sdk", "bare-sdk-start", "serialize", "bare-serialize", "sdk-yield", "bare-sdk-yield", "serialize-yield", "bare-serialize-yield"] as const;
const FLOOR_PROCESSES = Number(process.env.OBS_SPLIT_FLOOR_PROCESSES ?? 5);
const floorRuns = Object.fromEntries(FLOOR_MODES.map((mode) => [mode, [] as CallsRun[]]));
for (let i = 0; i < FLOOR_PROCESSES; i++) for (let m = 0; m < FLOOR_MODES.length; m++) {
  const mode = FLOOR_MODES[(m + i) % FLOOR_MODES.length]!;
  floorRuns[mode]!.push(await calls(mode));
}
const floor = Object.fromEntries(
  FLOOR_MODES.map((mode) => {
    const results = floorRuns[mode]!;
    return [mode, { coldUsPerStep: median(results.map((r) => r.coldUsPerStep)), benchUsPerStep: median(results.map((r) => r.benchUsPerStep)), warmUsPerStep: median(results.map((r) => r.warmUsPerStep)), spansExported: median(results.map((r) => r.exported)) }];
  }),
);

const over = (mode: Mode): number => median(cpu[mode].map((ms, r) => ms - cpu.off[r]!));
const overhead = Object.fromEntries(MODES.filter((mode) => mode !== "off").map((mode) => [mode, round3(over(mode))])) as Record<Exclude<Mode, "off">, number>;
const result = {
  bench: "observability-split",
  at: new Date().toISOString(),
  node: process.version,
  loop: `durable ${STEPS}-step tool loop (bench/durable-ours.ts), ${RUNS} measured runs after a warm run per process`,
  statistic: `median of the per-round differences against off (${ROUNDS} interleaved rounds); CPU = process.cpuUsage user + system, ms per step`,
  offCpuMsPerStep: round3(median(cpu.off)),
  overheadCpuMsPerStep: overhead,
  layersCpuMsPerStep: {
    adapter: overhead.adapter,
    sdkSpansAndMetrics: round3(overhead.sdk - overhead.adapter),
    otlpSerialization: round3(overhead.serialize - overhead.sdk),
    httpExport: round3(overhead.on - overhead.serialize),
    runStartFlush: round3(overhead.on - overhead["on-noflush"]),
  },
  rounds: Object.fromEntries(MODES.map((mode) => [mode, cpu[mode].map(round3)])),
  isolatedCallsUsPerStep: isolated,
  floorCallsUsPerStep: {
    about: `the isolated calls again (adapter modes sdk, serialize) interleaved with the bare-SDK floor (bare-*: the same spans and points, no steamharness code; -start: every attribute given at startSpan); -yield: the event loop runs after each run, so every span is exported (spansExported); median of ${FLOOR_PROCESSES} processes per mode`,
    ...floor,
  },
};
console.log(`CPU overhead per step: ${MODES.filter((mode) => mode !== "off").map((mode) => `${mode} +${overhead[mode as Exclude<Mode, "off">]} ms`).join(", ")}`);
console.log(`isolated telemetry calls, CPU µs/step (first 100 / next 300 / warm): ${CALL_MODES.map((mode) => `${mode} ${isolated[mode]!.coldUsPerStep} / ${isolated[mode]!.benchUsPerStep} / ${isolated[mode]!.warmUsPerStep}`).join(", ")}`);
console.log(`floor (bare SDK) vs adapter, CPU µs/step (first 100 / next 300 / warm): ${FLOOR_MODES.map((mode) => `${mode} ${floor[mode]!.coldUsPerStep} / ${floor[mode]!.benchUsPerStep} / ${floor[mode]!.warmUsPerStep}`).join(", ")}`);
writeFileSync(join("bench", "results", "observability-split.json"), `${JSON.stringify(result, null, 2)}\n`);
