import { createTraceState, ROOT_CONTEXT, SpanStatusCode, trace, type Context, type Span } from "@opentelemetry/api";
import type { TelemetryAttributes, TelemetryCarrier, TelemetrySpan } from "../../../ports/telemetry.js";

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The context whose parent is the span a W3C `traceparent` names (OBS-3, OBS-4); the root context
 * when there is none or it is malformed (a bad header never fails a request).
 *
 * @example
 * const parent = contextOf({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });
 */
export function contextOf(carrier: TelemetryCarrier | null | undefined): Context {
  const match = carrier ? TRACEPARENT.exec(carrier.traceparent.trim().toLowerCase()) : null;
  if (!match || match[1] === "ff" || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: match[2]!,
    spanId: match[3]!,
    traceFlags: Number.parseInt(match[4]!, 16) & 1,
    isRemote: true,
    ...(carrier?.tracestate ? { traceState: createTraceState(carrier.tracestate) } : {}),
  });
}

/**
 * The W3C trace context of a span, or null when it is not recorded (a non-recording span's
 * context is never stored: a resumed run would parent to a span that is exported nowhere).
 *
 * @example
 * const carrier = carrierOf(span);
 */
export function carrierOf(span: Span): TelemetryCarrier | null {
  const context = span.spanContext();
  if (!trace.isSpanContextValid(context) || !span.isRecording()) return null;
  const traceparent = `00-${context.traceId}-${context.spanId}-0${context.traceFlags & 1}`;
  const tracestate = context.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** Attributes without `undefined` entries. */
export function clean(attributes: TelemetryAttributes | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  if (attributes) for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * A port span over an OpenTelemetry span: `end` sets `error.type` and the error status once;
 * `onEnd` runs once with the duration in seconds and the error (for metrics).
 *
 * @example
 * const wrapped = wrapSpan(span, (seconds, error) => histogram.record(seconds, { ...(error ? { "error.type": error } : {}) }));
 */
export function wrapSpan(span: Span, onEnd?: (seconds: number, error: string | undefined) => void): TelemetrySpan {
  const started = performance.now();
  let ended = false;
  // Every method swallows a failing backend (OBS-1: telemetry never throws into the app).
  return {
    event(name, attributes) {
      if (ended) return;
      try {
        span.addEvent(name, clean(attributes));
      } catch {
        // dropped
      }
    },
    set(attributes) {
      if (ended) return;
      try {
        span.setAttributes(clean(attributes));
      } catch {
        // dropped
      }
    },
    end(outcome) {
      if (ended) return;
      ended = true;
      try {
        const attributes = outcome?.attributes;
        if (attributes) for (const key in attributes) if (attributes[key] !== undefined) span.setAttribute(key, attributes[key]!);
        if (outcome?.error) {
          span.setAttribute("error.type", outcome.error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
        }
        span.end();
        onEnd?.((performance.now() - started) / 1000, outcome?.error);
      } catch {
        // dropped
      }
    },
    carrier() {
      try {
        return carrierOf(span);
      } catch {
        return null;
      }
    },
  };
}
