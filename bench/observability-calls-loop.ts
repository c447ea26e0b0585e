/**
 * One process of bench/observability-split.bench.ts's isolated figure: only the telemetry calls a
 * step of the durable tool loop makes (a model call and its finish, a tool call and its end; one
 * run per 100 steps), without the agent, the store or the tools around them, timed in CPU
 * (`process.cpuUsage`). Modes as bench/observability-split-loop.ts: `adapter` (our adapter over
 * the API's no-op providers), `sdk` (+ the real SDK, an exporter that drops), `serialize` (+ OTLP
 * JSON serialization). Reports µs per step for the first 100 steps, the next 300 (the regime of
 * the bench's measured runs: a fresh process) and steps 10 000–30 000 (warm, a long-lived host).
 * Usage: node --import tsx bench/observability-calls-loop.ts <mode>
 * Prints one JSON line: { coldUsPerStep, benchUsPerStep, warmUsPerStep }.
 */
import { metrics, trace } from "@opentelemetry/api";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { createOpenTelemetry } from "../src/adapters/out/opentelemetry/open-telemetry.js";
import type { Telemetry } from "../src/ports/telemetry.js";
import { startTestSdk } from "../test/fixtures/otel-sdk.js";

const mode = process.argv[2];
let telemetry: Telemetry;
if (mode === "adapter") telemetry = createOpenTelemetry({ tracerProvider: trace.getTracerProvider(), meterProvider: metrics.getMeterProvider(), env: {} });
else if (mode === "sdk" || mode === "serialize") {
  const exporter: SpanExporter = {
    export(spans, done) {
      if (mode === "serialize") JsonTraceSerializer.serializeRequest(spans);
      done({ code: 0 });
    },
    shutdown: async () => undefined,
  };
  // The URL is never called: spans go to the exporter above, metrics export every 60 s.
  const sdk = startTestSdk("http://127.0.0.1:9", "bench-calls", { scheduledDelayMillis: 5000, exporter });
  telemetry = createOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, env: {} });
} else throw new Error(`unknown mode ${mode}`);

const usage = { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, total: 110 };
let runs = 0;

/** `runCount` runs of 100 steps each; CPU µs per step. */
function steps(runCount: number): number {
  const cpu = process.cpuUsage();
  for (let r = 0; r < runCount; r++) {
    const runId = `run-${runs++}`;
    const run = telemetry.run({ runId, agentName: "agent", conversationId: runId, provider: "offline", model: "offline-model" });
    for (let step = 0; step < 100; step++) {
      const call = run.modelCall({ step, attempt: 1 });
      call.finish({ usage, responseModel: "offline-model", finishReason: "toolUse" });
      const tool = run.toolCall({ name: "lookup", callId: `call-${step}` });
      tool.end({ attributes: { result: undefined } });
    }
    run.finish({ status: "waiting", usage });
  }
  const used = process.cpuUsage(cpu);
  return Math.round(((used.user + used.system) / (runCount * 100)) * 10) / 10;
}

const coldUsPerStep = steps(1);
const benchUsPerStep = steps(3);
steps(96);
const warmUsPerStep = steps(200);
console.log(JSON.stringify({ coldUsPerStep, benchUsPerStep, warmUsPerStep }));
process.exit(0);
