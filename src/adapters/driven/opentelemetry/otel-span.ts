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
 * A port span over an OpenTelemetry span, as a class: the per-step spans (`chat`, `execute_tool`)
 * are built hundreds of times a run, and prototype methods cost one object per span where
 * closures cost one per method (OBS overhead). `end` sets `error.type` and the error status once,
 * then `ended(seconds, error)` runs once (subclasses record metrics there). Every method swallows
 * a failing backend (OBS-1: telemetry never throws into the app).
 *
 * @example
 * const span = new OtelSpan(tracer.startSpan("steamharness.compaction"));
 */
export class OtelSpan implements TelemetrySpan {
  protected done = false;

  constructor(protected readonly span: Span) {}

  /** {@inheritDoc TelemetrySpan.event} */
  event(name: string, attributes?: TelemetryAttributes): void {
    if (this.done) return;
    try {
      this.span.addEvent(name, clean(attributes));
    } catch {
      // dropped
    }
  }

  /** {@inheritDoc TelemetrySpan.set} */
  set(attributes: TelemetryAttributes): void {
    if (this.done) return;
    try {
      setDefined(this.span, attributes);
    } catch {
      // dropped
    }
  }

  /** {@inheritDoc TelemetrySpan.end} */
  end(outcome?: { error?: string; attributes?: TelemetryAttributes }): void {
    if (this.done) return;
    this.done = true;
    try {
      if (outcome?.attributes) this.setEnd(outcome.attributes);
      const error = outcome?.error;
      if (error) {
        this.span.setAttribute("error.type", error);
        this.span.setStatus({ code: SpanStatusCode.ERROR, message: error });
      }
      this.span.end();
      this.ended(error);
    } catch {
      // dropped
    }
  }

  /** {@inheritDoc TelemetrySpan.carrier} */
  carrier(): TelemetryCarrier | null {
    try {
      return carrierOf(this.span);
    } catch {
      return null;
    }
  }

  /** The attributes `end` was given (subclasses map some of them, such as captured content). */
  protected setEnd(attributes: TelemetryAttributes): void {
    setDefined(this.span, attributes);
  }

  /** Runs once, after the span ended. */
  protected ended(_error: string | undefined): void {}
}

/** A span that reports its duration in seconds when it ends (for a histogram). */
class MeasuredSpan extends OtelSpan {
  private readonly started = performance.now();

  constructor(span: Span, private readonly onEnd: (seconds: number, error: string | undefined) => void) {
    super(span);
  }

  protected override ended(error: string | undefined): void {
    this.onEnd((performance.now() - this.started) / 1000, error);
  }
}

/** Sets the defined entries of `attributes` on `span` (no intermediate object). */
export function setDefined(span: Span, attributes: TelemetryAttributes | undefined): void {
  if (attributes) for (const key in attributes) if (attributes[key] !== undefined) span.setAttribute(key, attributes[key]!);
}

/**
 * A port span over an OpenTelemetry span; `onEnd` runs once with the duration in seconds and the
 * error (for metrics).
 *
 * @example
 * const wrapped = wrapSpan(span, (seconds, error) => histogram.record(seconds, { ...(error ? { "error.type": error } : {}) }));
 */
export function wrapSpan(span: Span, onEnd?: (seconds: number, error: string | undefined) => void): TelemetrySpan {
  return onEnd ? new MeasuredSpan(span, onEnd) : new OtelSpan(span);
}
