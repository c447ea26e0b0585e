import { metrics as globalMetrics, SpanKind, trace, type MeterProvider, type TracerProvider } from "@opentelemetry/api";
import { redactSecrets, secretValues } from "../../../domain/redaction.js";
import type { Telemetry, TelemetryRequestInfo, TelemetrySpan } from "../../../ports/telemetry.js";
import { DROPPED_SPAN, guarded } from "./otel-guard.js";
import { leaseSpan } from "./otel-lease.js";
import { createRunMetrics } from "./otel-metrics.js";
import { startRun, type RunTracing } from "./otel-run.js";
import { clean, contextOf, wrapSpan } from "./otel-span.js";

/** Options of {@link createOpenTelemetry}. */
export interface OpenTelemetryOptions {
  /** Where spans go; default the global provider (`NodeSDK.start()` or `provider.register()` sets it). */
  tracerProvider?: TracerProvider;
  /** Where metrics go; default the global meter provider. */
  meterProvider?: MeterProvider;
  /**
   * Record messages, tool arguments and tool results on spans (`gen_ai.input.messages`, …).
   * Off by default; when on, secret values are replaced by `[redacted]` first.
   */
  captureContent?: boolean;
  /** Values to redact besides those of credential-named variables of `env`. */
  secrets?: readonly string[];
  /** The environment whose credential-named variables are redacted (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Content longer than this is cut (default 16384 characters). */
  maxContentLength?: number;
  /**
   * Flush the tracer provider when a run starts (default true), so the run's root span is exported
   * before anything can crash: a run resumed after a crash then never parents to a root that
   * was lost in a buffer (metrics keep their own schedule). It also exports whatever other spans are buffered at that moment, so with
   * many short runs `false` batches better (and a crash in the first few seconds of a run may
   * leave its resumed part under a missing root). Runs that start while a flush is in flight
   * share one more flush after it.
   */
  flushOnRunStart?: boolean;
}

const SCOPE = "steamharness";

type Flushable = { forceFlush?: () => Promise<void>; getDelegate?: () => unknown };

/** The SDK provider behind a (proxy) provider, when it can flush. */
function flusher(provider: unknown): (() => Promise<void>) | null {
  let target = provider as Flushable | undefined;
  if (target && typeof target.getDelegate === "function") target = target.getDelegate() as Flushable;
  return target && typeof target.forceFlush === "function" ? () => target!.forceFlush!() : null;
}

/**
 * At most one flush in flight: a run that starts while one is in flight asks for one more after
 * it (its root may have missed the batch in flight), and every run that starts meanwhile shares
 * that one. So N runs starting together cost two exports, not N (OBS-4, OBS overhead).
 */
function coalesced(flush: () => Promise<void>): () => void {
  let inFlight = false;
  let again = false;
  const start = (): void => {
    inFlight = true;
    again = false;
    void flush()
      .catch(() => undefined)
      .then(() => {
        inFlight = false;
        if (again) start();
      });
  };
  return () => {
    if (inFlight) again = true;
    else start();
  };
}

/**
 * The telemetry port over OpenTelemetry (OBS-1, OBS-2, OBS-5): spans and metrics per the GenAI
 * semantic conventions, on whatever SDK the host set up. Only `@opentelemetry/api` is imported.
 *
 * @example
 * import { createHarnessRuntime } from "steamharness";
 * import { createOpenTelemetry } from "steamharness/opentelemetry";
 * const runtime = { ...createHarnessRuntime(), telemetry: createOpenTelemetry() };
 */
export function createOpenTelemetry(options: OpenTelemetryOptions = {}): Telemetry {
  const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
  const meterProvider = options.meterProvider ?? globalMetrics.getMeterProvider();
  const tracer = tracerProvider.getTracer(SCOPE);
  const captureContent = options.captureContent === true;
  const secrets = [...new Set([...(options.secrets ?? []), ...secretValues(options.env ?? process.env)])].sort((a, b) => b.length - a.length);
  const max = options.maxContentLength ?? 16384;
  const flushers = [flusher(tracerProvider), flusher(meterProvider)].filter((flush): flush is () => Promise<void> => flush !== null);
  const flushSpans = flusher(tracerProvider);
  const flush = async (): Promise<void> => void (await Promise.all(flushers.map((run) => run().catch(() => undefined))));
  const tracing: RunTracing = {
    tracer,
    captureContent,
    metrics: createRunMetrics(meterProvider.getMeter(SCOPE)),
    content(value) {
      if (!captureContent || value === undefined) return undefined;
      const text = redactSecrets(typeof value === "string" ? value : JSON.stringify(value), secrets);
      return text.length > max ? `${text.slice(0, max)}…` : text;
    },
    // Only the spans: a resumed run needs its root exported, not the metrics (exporting those at
    // every run's start cost more CPU than all of the run's spans, OBS overhead).
    flushSoon: options.flushOnRunStart === false || !flushSpans ? () => undefined : coalesced(flushSpans),
  };
  const request = (name: string, kind: SpanKind, attributes: Record<string, string | number | boolean | undefined>, parent: TelemetryRequestInfo["parent"]): TelemetrySpan =>
    guarded(() => wrapSpan(tracer.startSpan(name, { kind, attributes: clean(attributes) }, contextOf(parent))), DROPPED_SPAN);
  return {
    enabled: true,
    captureContent,
    run: (info) => startRun(tracing, info),
    lease: (info) => guarded(() => leaseSpan(tracer, info), undefined),
    mcpRequest: ({ method, target, requestId, parent }) =>
      request(target ? `${method} ${target}` : method, SpanKind.SERVER, {
        "mcp.method.name": method,
        ...(method === "tools/call" ? { "gen_ai.tool.name": target, "gen_ai.operation.name": "execute_tool" } : {}),
        "jsonrpc.request.id": requestId === undefined ? undefined : String(requestId),
        "network.transport": "pipe",
      }, parent),
    gatewayRequest: ({ method, target, parent }) =>
      request(target ? `${method} ${target}` : method, SpanKind.SERVER, { "http.request.method": method, "http.route": target }, parent),
    flush,
  };
}
