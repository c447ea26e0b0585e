import { describe, expect, it } from "@jest/globals";
import { AggregationTemporality, MeterProvider, MetricReader, type HistogramMetricData } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { bareSdkRuns } from "../../bench/observability-bare-sdk.js";
import { createOpenTelemetry } from "../../src/adapters/out/opentelemetry/open-telemetry.js";

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
