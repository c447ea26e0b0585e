/**
 * One process of bench/observability-cpu.bench.ts: the same durable tool loop and telemetry modes
 * as bench/observability-loop.ts (off, on), with a warm run and then `runs` measured runs, each
 * in a fresh folder; reports the process's CPU time (user + system, `process.cpuUsage`) per step
 * over the measured runs, which depends far less on the machine's load than wall time.
 * The SDK's batch processor exports on its own schedule (5 s): export work that lands inside the
 * measured runs is counted, like in production.
 * Usage: node --import tsx bench/observability-cpu-loop.ts <off|on> <dir> <steps> <runs> [receiver url]
 * Prints one JSON line: { cpuMsPerStep, wallMsPerStep }.
 */
import { join } from "node:path";
import { createHarnessRuntime } from "../src/compose/runtime.js";
import type { HarnessRuntime } from "../src/ports/runtime.js";
import { runBenchLoop } from "./observability-support.js";

const [mode, target, stepsArg, runsArg, receiver] = process.argv.slice(2);
const steps = Number(stepsArg ?? 100);
const runs = Number(runsArg ?? 3);

let runtime: HarnessRuntime = createHarnessRuntime();
let shutdown = async (): Promise<void> => undefined;
if (mode === "on") {
  const [{ startTestSdk }, { createOpenTelemetry }] = await Promise.all([import("../test/fixtures/otel-sdk.js"), import("../src/adapters/driven/opentelemetry/open-telemetry.js")]);
  const sdk = startTestSdk(receiver!, "bench", { scheduledDelayMillis: 5000 });
  runtime = { ...runtime, telemetry: createOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }) };
  shutdown = () => sdk.shutdown();
}

const loop = (dir: string, runId: string): Promise<void> => runBenchLoop(dir, runId, steps, runtime);

await loop(join(target!, "warm"), "run-warm");
const cpu = process.cpuUsage();
const started = performance.now();
for (let run = 0; run < runs; run++) await loop(join(target!, `measured-${run}`), `run-measured-${run}`);
const used = process.cpuUsage(cpu);
const wall = performance.now() - started;
await shutdown();
console.log(JSON.stringify({ cpuMsPerStep: (used.user + used.system) / 1000 / (steps * runs), wallMsPerStep: wall / (steps * runs) }));
