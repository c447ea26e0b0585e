import { describe, expect, it } from "@jest/globals";
import type { Meter, MeterProvider, Tracer, TracerProvider } from "@opentelemetry/api";
import { InMemorySpanExporter, BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { MeterProvider as SdkMeterProvider } from "@opentelemetry/sdk-metrics";
import { createNoopTelemetry } from "../../src/adapters/driven/memory/noop-telemetry.js";
import { createOpenTelemetry } from "../../src/adapters/driven/opentelemetry/open-telemetry.js";
import { runTelemetryContract, type TelemetrySpanRecord } from "../../src/testing/telemetry.contract.js";

/** A backend that fails on every call: its tracer and histograms throw, its flush rejects. */
const failingTracer = new Proxy({}, { get: () => () => { throw new Error("tracer down"); } }) as Tracer;
const failingTracerProvider: TracerProvider & { forceFlush(): Promise<void> } = { getTracer: () => failingTracer, forceFlush: () => Promise.reject(new Error("exporter down")) };
const failingMeter = new Proxy({}, { get: () => () => ({ record() { throw new Error("meter down"); } }) }) as unknown as Meter;
const failingMeterProvider: MeterProvider = { getMeter: () => failingMeter };

describe("OBS-1 telemetry contract: the no-op", () => {
  // The no-op has no backend: its "failing" form is itself (nothing to fail).
  runTelemetryContract({ describe, it, expect }, () => ({ store: createNoopTelemetry(), inspect: { spans: async () => [], failing: () => createNoopTelemetry() } }));
});

for (const captureContent of [false, true]) {
  describe(`OBS-1 telemetry contract: OpenTelemetry over the real SDK (captureContent ${captureContent})`, () => {
    runTelemetryContract({ describe, it, expect }, () => {
      const exporter = new InMemorySpanExporter();
      const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const meterProvider = new SdkMeterProvider();
      const spans = async (): Promise<TelemetrySpanRecord[]> =>
        exporter.getFinishedSpans().map((span) => ({
          name: span.name,
          traceId: span.spanContext().traceId,
          spanId: span.spanContext().spanId,
          parentSpanId: span.parentSpanContext?.spanId ?? null,
          attributes: span.attributes,
          events: span.events.map((event) => ({ name: event.name, attributes: event.attributes ?? {} })),
        }));
      return {
        store: createOpenTelemetry({ tracerProvider, meterProvider, captureContent, env: {} }),
        inspect: { spans, failing: () => createOpenTelemetry({ tracerProvider: failingTracerProvider, meterProvider: failingMeterProvider, captureContent, env: {} }) },
        dispose: async () => void (await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()])),
      };
    });
  });
}
