/**
 * One process of bench/observability-split.bench.ts's isolated figure: only the telemetry calls a
 * step of the durable tool loop makes (a model call and its finish, a tool call and its end; one
 * run per 100 steps), without the agent, the store or the tools around them, timed in CPU
 * (`process.cpuUsage`). Modes as bench/observability-split-loop.ts: `adapter` (our adapter over
 * the API's no-op providers), `sdk` (+ the real SDK, an exporter that drops), `serialize` (+ OTLP
 * JSON serialization); and the floor, the same spans and metric points made by the bare SDK with
 * no steamharness code (bench/observability-bare-sdk.ts): `bare-sdk` and `bare-serialize` (as `sdk`
 * and `serialize`, attributes the adapter's way: creation-time ones at start, the rest set after),
 * `bare-sdk-start` (every attribute given at start). Reports µs per step for the first 100 steps, the next 300 (the regime of
 * the bench's measured runs: a fresh process) and steps 10 000–30 000 (warm, a long-lived host).
 * With `yield` as 2nd argument, it yields to the event loop after each run (see `stepsYielding`).
 * Usage: node --import tsx bench/observability-calls-loop.ts <mode> [yield]
 * Prints one JSON line: { coldUsPerStep, benchUsPerStep, warmUsPerStep, exported } (spans the exporter got).
 */
import { metrics, trace } from "@opentelemetry/api";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { createOpenTelemetry } from "../src/adapters/driven/opentelemetry/open-telemetry.js";
import type { Telemetry } from "../src/ports/telemetry.js";
import { startTestSdk } from "../test/fixtures/otel-sdk.js";
import { bareSdkRuns, type BareRun } from "./observability-bare-sdk.js";

const arg = process.argv[2];
const bare = arg?.startsWith("bare-") ? (arg === "bare-sdk-start" ? "start" : "set") : null;
const mode = bare ? (arg === "bare-serialize" ? "serialize" : "sdk") : arg;
let telemetry: Telemetry | undefined;
let exported = 0;
let bareRun: ((runId: string) => BareRun) | undefined;
if (mode === "adapter") telemetry = createOpenTelemetry({ tracerProvider: trace.getTracerProvider(), meterProvider: metrics.getMeterProvider(), env: {} });
else if (mode === "sdk" || mode === "serialize") {
  const exporter: SpanExporter = {
    export(spans, done) {
      exported += spans.length;
      if (mode === "serialize") JsonTraceSerializer.serializeRequest(spans);
      done({ code: 0 });
    },
    shutdown: async () => undefined,
  };
  // The URL is never called: spans go to the exporter above, metrics export every 60 s.
  const sdk = startTestSdk("http://127.0.0.1:9", "bench-calls", { scheduledDelayMillis: 5000, exporter });
  if (bare) {
    const runs = bareSdkRuns({ tracer: sdk.tracerProvider.getTracer("steamharness"), meter: sdk.meterProvider.getMeter("steamharness"), flush: () => sdk.tracerProvider.forceFlush() }, bare);
    bareRun = (runId) => runs(runId, "offline", "offline-model", "lookup");
  } else telemetry = createOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, env: {} });
} else throw new Error(`unknown mode ${arg}`);

const usage = { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, total: 110 };
let runs = 0;

/** One run of 100 steps. */
function oneRun(): void {
  const runId = `run-${runs++}`;
  if (bareRun) {
    const run = bareRun(runId);
    for (let step = 0; step < 100; step++) run.step(step, usage);
    run.finish(usage);
    return;
  }
  const run = telemetry!.run({ runId, agentName: "agent", conversationId: runId, provider: "offline", model: "offline-model" });
  for (let step = 0; step < 100; step++) {
    const call = run.modelCall({ step, attempt: 1 });
    call.finish({ usage, responseModel: "offline-model", finishReason: "toolUse" });
    const tool = run.toolCall({ name: "lookup", callId: `call-${step}` });
    tool.end({ attributes: { result: undefined } });
  }
  run.finish({ status: "waiting", usage });
}

const perStep = (cpu: NodeJS.CpuUsage, runCount: number): number => {
  const used = process.cpuUsage(cpu);
  return Math.round(((used.user + used.system) / (runCount * 100)) * 10) / 10;
};

/**
 * `runCount` runs of 100 steps each without yielding; CPU µs per step. The batch processor's
 * export only completes on a later tick, so after its first batch it stops exporting and, once
 * its queue (2048) is full, drops spans: the warm figure here is mostly spans dropped.
 */
function steps(runCount: number): number {
  const cpu = process.cpuUsage();
  for (let r = 0; r < runCount; r++) oneRun();
  return perStep(cpu, runCount);
}

/** Like {@link steps}, yielding to the event loop after each run as a host does (every span exported; the yield's work is counted). */
async function stepsYielding(runCount: number): Promise<number> {
  const cpu = process.cpuUsage();
  for (let r = 0; r < runCount; r++) {
    oneRun();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return perStep(cpu, runCount);
}

if (process.argv[3] === "yield") {
  const coldUsPerStep = await stepsYielding(1);
  const benchUsPerStep = await stepsYielding(3);
  await stepsYielding(96);
  const warmUsPerStep = await stepsYielding(200);
  console.log(JSON.stringify({ coldUsPerStep, benchUsPerStep, warmUsPerStep, exported }));
} else {
  const coldUsPerStep = steps(1);
  const benchUsPerStep = steps(3);
  steps(96);
  const warmUsPerStep = steps(200);
  console.log(JSON.stringify({ coldUsPerStep, benchUsPerStep, warmUsPerStep, exported }));
}
process.exit(0);
