/**
 * One process of bench/observability-split.bench.ts: the loop of bench/observability-cpu-loop.ts
 * (same agent, storage, warm run, `runs` measured runs, CPU by `process.cpuUsage`) with the
 * telemetry built up one layer at a time, so the differences between modes split the cost of
 * tracing:
 *   off        the no-op telemetry (the library's default)
 *   adapter    our adapter over the API's no-op providers (no SDK): our own code only
 *   sdk        + the real SDK (tracer provider, batch span processor, meter provider), spans
 *              handed to an exporter that drops them: SDK span objects, processors, metrics
 *   serialize  + the exporter serializes each batch to OTLP/HTTP JSON (the OTLP exporter's own
 *              serializer) and drops the bytes: OTLP transformation and serialization
 *   on         + the OTLP/HTTP exporter sending to the bench's loopback receiver (the defined
 *              figure of bench/observability-cpu.bench.ts): HTTP export
 * Every SDK mode keeps the flush at each run's start unless `flushOnRunStart=false` is the 6th
 * argument. Usage: node --import tsx bench/observability-split-loop.ts <mode> <dir> <steps> <runs> <receiver url> [flush]
 * Prints one JSON line: { cpuMsPerStep, wallMsPerStep, spans }.
 */
import { join } from "node:path";
import { createHarnessRuntime } from "../src/compose/runtime.js";
import type { HarnessRuntime } from "../src/ports/runtime.js";
import { runBenchLoop } from "./observability-support.js";

const [mode, target, stepsArg, runsArg, receiver, flushArg] = process.argv.slice(2);
const steps = Number(stepsArg ?? 100);
const runs = Number(runsArg ?? 3);
const flushOnRunStart = flushArg !== "flushOnRunStart=false";

let runtime: HarnessRuntime = createHarnessRuntime();
let shutdown = async (): Promise<void> => undefined;
let exported = 0;
if (mode === "adapter") {
  const [{ trace, metrics }, { createOpenTelemetry }] = await Promise.all([import("@opentelemetry/api"), import("../src/adapters/driven/opentelemetry/open-telemetry.js")]);
  runtime = { ...runtime, telemetry: createOpenTelemetry({ tracerProvider: trace.getTracerProvider(), meterProvider: metrics.getMeterProvider(), flushOnRunStart }) };
} else if (mode === "sdk" || mode === "serialize" || mode === "on") {
  const [{ startTestSdk }, { createOpenTelemetry }, { JsonTraceSerializer }] = await Promise.all([
    import("../test/fixtures/otel-sdk.js"),
    import("../src/adapters/driven/opentelemetry/open-telemetry.js"),
    import("@opentelemetry/otlp-transformer"),
  ]);
  type Spans = Parameters<typeof JsonTraceSerializer.serializeRequest>[0];
  const exporter =
    mode === "on"
      ? undefined
      : {
          export(spans: Spans, done: (result: { code: number }) => void) {
            exported += spans.length;
            if (mode === "serialize") JsonTraceSerializer.serializeRequest(spans);
            done({ code: 0 });
          },
          shutdown: async () => undefined,
        };
  const sdk = startTestSdk(receiver!, "bench", { scheduledDelayMillis: 5000, ...(exporter ? { exporter } : {}) });
  runtime = { ...runtime, telemetry: createOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, flushOnRunStart }) };
  shutdown = () => sdk.shutdown();
} else if (mode !== "off") throw new Error(`unknown mode ${mode}`);

const loop = (dir: string, runId: string): Promise<void> => runBenchLoop(dir, runId, steps, runtime);

await loop(join(target!, "warm"), "run-warm");
// OBS_SPLIT_PROFILE=<file>: a V8 CPU profile of the measured runs only (not start-up, not the warm run).
const profile = process.env.OBS_SPLIT_PROFILE;
const inspector = profile ? new (await import("node:inspector/promises")).Session() : null;
if (inspector) {
  inspector.connect();
  await inspector.post("Profiler.enable");
  await inspector.post("Profiler.setSamplingInterval", { interval: 100 });
  await inspector.post("Profiler.start");
}
const cpu = process.cpuUsage();
const started = performance.now();
for (let run = 0; run < runs; run++) await loop(join(target!, `measured-${run}`), `run-measured-${run}`);
const used = process.cpuUsage(cpu);
const wall = performance.now() - started;
if (inspector) {
  const { profile: taken } = await inspector.post("Profiler.stop");
  (await import("node:fs")).writeFileSync(profile!, JSON.stringify(taken));
  inspector.disconnect();
}
await shutdown();
console.log(JSON.stringify({ cpuMsPerStep: (used.user + used.system) / 1000 / (steps * runs), wallMsPerStep: wall / (steps * runs), spans: exported }));
