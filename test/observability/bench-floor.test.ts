import { describe, expect, it } from "@jest/globals";
import { context as contexts, type Histogram, type Meter, type Span, type Tracer } from "@opentelemetry/api";
import { AggregationTemporality, MeterProvider, MetricReader, type HistogramMetricData } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { bareSdkRuns } from "../../bench/observability-bare-sdk.js";
import { createOpenTelemetry } from "../../src/adapters/driven/opentelemetry/open-telemetry.js";

/** A metric reader collected on demand. */
class Reader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const usage = { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, total: 110 };

/** Two runs of three steps, as bench/observability-calls-loop.ts drives them: what was exported. */
async function exported(drive: (sdk: { tracerProvider: BasicTracerProvider; meterProvider: MeterProvider }) => void) {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new Reader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  drive({ tracerProvider, meterProvider });
  const spans = exporter.getFinishedSpans();
  const ids = new Map(spans.map((span, i) => [span.spanContext().spanId, i]));
  const { resourceMetrics } = await reader.collect();
  await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
  return {
    spans: spans.map((span) => ({
      name: span.name,
      kind: span.kind,
      scope: span.instrumentationScope.name,
      // the parent as an index in the export order (ids are random)
      parent: span.parentSpanContext ? (ids.get(span.parentSpanContext.spanId) ?? "missing") : null,
      attributes: Object.entries(span.attributes).sort(([a], [b]) => a.localeCompare(b)),
      events: span.events.length,
      status: span.status,
    })),
    metrics: resourceMetrics.scopeMetrics.flatMap((scope) =>
      scope.metrics.map((metric) => ({
        scope: scope.scope.name,
        name: metric.descriptor.name,
        unit: metric.descriptor.unit,
        description: metric.descriptor.description,
        points: (metric as HistogramMetricData).dataPoints.map((point) => ({
          attributes: Object.entries(point.attributes).sort(([a], [b]) => a.localeCompare(b)),
          count: point.value.count,
          boundaries: point.value.buckets.boundaries,
          // token counts are exact; durations are not compared
          ...(metric.descriptor.unit === "{token}" ? { sum: point.value.sum, counts: point.value.buckets.counts } : {}),
        })),
      })),
    ),
  };
}

describe("OBS bench floor (bench/observability-bare-sdk.ts)", () => {
  const adapter = () =>
    exported(({ tracerProvider, meterProvider }) => {
      const telemetry = createOpenTelemetry({ tracerProvider, meterProvider, env: {}, flushOnRunStart: false });
      for (const runId of ["run-0", "run-1"]) {
        const run = telemetry.run({ runId, agentName: "agent", conversationId: runId, provider: "offline", model: "offline-model" });
        for (let step = 0; step < 3; step++) {
          run.modelCall({ step, attempt: 1 }).finish({ usage, responseModel: "offline-model", finishReason: "toolUse" });
          run.toolCall({ name: "lookup", callId: `call-${step}` }).end({ attributes: { result: undefined } });
        }
        run.finish({ status: "waiting", usage });
      }
    });

  for (const placement of ["start", "set"] as const) {
    it(`OBS-2 OBS-5 the bare-SDK floor (${placement}) exports exactly the adapter's spans and metric points`, async () => {
      const floor = await exported(({ tracerProvider, meterProvider }) => {
        const runs = bareSdkRuns({ tracer: tracerProvider.getTracer("steamharness"), meter: meterProvider.getMeter("steamharness") }, placement);
        for (const runId of ["run-0", "run-1"]) {
          const run = runs(runId, "offline", "offline-model", "lookup");
          for (let step = 0; step < 3; step++) run.step(step, usage);
          run.finish(usage);
        }
      });
      const ours = await adapter();
      expect(ours.spans).toHaveLength(2 * (2 + 3 * 2));
      expect(ours.metrics.map((metric) => metric.name).sort()).toEqual(["gen_ai.client.operation.duration", "gen_ai.client.token.usage", "steamharness.run.duration"]);
      expect(floor).toEqual(ours);
    });
  }
});

/**
 * What SDK calls a stretch of steps makes, counted on the SDK's own objects (tracer, spans,
 * histograms, the API's context): every method of a span the tracer returns, every histogram
 * record, every `context.active()`.
 */
function counting(tracer: Tracer, meter: Meter) {
  const counts: Record<string, number> = {};
  const count = (key: string): void => void (counts[key] = (counts[key] ?? 0) + 1);
  const wrap = <T extends object>(target: T, label: string, methods: string[]): T => {
    const object = target as Record<string, (...args: unknown[]) => unknown>;
    for (const method of methods) {
      const original = object[method]!;
      object[method] = function (this: unknown, ...args: unknown[]) {
        count(`${label}.${method}`);
        return original.apply(this, args);
      };
    }
    return target;
  };
  const SPAN_METHODS = ["setAttribute", "setAttributes", "addEvent", "addLink", "addLinks", "setStatus", "updateName", "end", "isRecording", "recordException", "spanContext"];
  const startSpan = tracer.startSpan.bind(tracer);
  const countedTracer = { ...tracer, startSpan: (...args: Parameters<Tracer["startSpan"]>): Span => (count("tracer.startSpan"), wrap(startSpan(...args), "span", SPAN_METHODS)) } as Tracer;
  const createHistogram = meter.createHistogram.bind(meter);
  const countedMeter = { ...meter, createHistogram: (...args: Parameters<Meter["createHistogram"]>): Histogram => wrap(createHistogram(...args), "histogram", ["record"]) } as Meter;
  return { tracer: countedTracer, meter: countedMeter, counts, reset: () => Object.keys(counts).forEach((key) => delete counts[key]) };
}

describe("OBS overhead: per step the adapter asks the SDK for nothing the bare floor does not", () => {
  it("OBS-2 OBS-5 a step's SDK calls (spans started and ended, attributes set, points recorded, context reads) equal the bare-SDK floor's", () => {
    const steps = 10;
    const measure = (drive: (tracer: Tracer, meter: Meter) => (step: number) => void): Record<string, number> => {
      // a batch processor as in production (a simple one exports, and reads the context, per span)
      const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new InMemorySpanExporter(), { scheduledDelayMillis: 60_000 })] });
      const meterProvider = new MeterProvider();
      const sdk = counting(tracerProvider.getTracer("steamharness"), meterProvider.getMeter("steamharness"));
      const step = drive(sdk.tracer, sdk.meter);
      const active = contexts.active;
      contexts.active = function (this: typeof contexts) {
        sdk.counts["context.active"] = (sdk.counts["context.active"] ?? 0) + 1;
        return active.call(this);
      };
      sdk.reset();
      try {
        for (let i = 0; i < steps; i++) step(i);
      } finally {
        contexts.active = active;
        void Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
      }
      // setAttributes(…) is one setAttribute per entry inside the SDK: compare attribute writes
      const { ["span.setAttributes"]: _grouped, ...calls } = sdk.counts;
      return Object.fromEntries(Object.entries(calls).map(([key, value]) => [key, value / steps]));
    };
    const adapter = measure((tracer, meter) => {
      const telemetry = createOpenTelemetry({ tracerProvider: { getTracer: () => tracer }, meterProvider: { getMeter: () => meter }, env: {}, flushOnRunStart: false });
      const run = telemetry.run({ runId: "run-0", agentName: "agent", conversationId: "run-0", provider: "offline", model: "offline-model" });
      return (step) => {
        run.modelCall({ step, attempt: 1 }).finish({ usage, responseModel: "offline-model", finishReason: "toolUse" });
        run.toolCall({ name: "lookup", callId: `call-${step}` }).end({ attributes: { result: undefined } });
      };
    });
    const floor = measure((tracer, meter) => {
      const run = bareSdkRuns({ tracer, meter }, "set")("run-0", "offline", "offline-model", "lookup");
      return (step) => run.step(step, usage);
    });
    // the SDK's own reads of a span's context (its processors) are left to the floor's comparison
    const { ["span.spanContext"]: _reads, ...asked } = adapter;
    expect(asked).toEqual({ "tracer.startSpan": 2, "span.setAttribute": 14, "span.end": 2, "histogram.record": 3 });
    expect(adapter).toEqual(floor);
  });
});
