import { context as contexts, SpanKind, trace, type Context, type Tracer } from "@opentelemetry/api";
import type { TelemetryAttributes, TelemetryCarrier, TelemetryLeaseInfo, TelemetryModelCall, TelemetryRun, TelemetryRunInfo, TelemetrySpan } from "../../../ports/telemetry.js";
import type { TokenCounts } from "../../../ports/token-usage.js";
import { ChatSpan, ToolSpan, type RunCalls } from "./otel-calls.js";
import type { RunMetrics } from "./otel-metrics.js";
import { DROPPED_RUN, DROPPED_SPAN } from "./otel-guard.js";
import { leaseAttributes } from "./otel-lease.js";
import { clean, contextOf, wrapSpan } from "./otel-span.js";

/** What a run's spans share: the tracer, the metrics, content capture and its redaction. */
export interface RunTracing {
  tracer: Tracer;
  metrics: RunMetrics;
  captureContent: boolean;
  /** Content as an attribute value, redacted; undefined when capture is off. */
  content(value: unknown): string | undefined;
  /** Exports what is buffered, in the background. */
  flushSoon(): void;
}

/**
 * A run's spans (OBS-2, OBS-4). The run's root `steamharness.run` span starts and ends when the
 * run is created and is exported at once; its context is stored with the run. Every other span
 * of the run — each part's `invoke_agent`, and `chat`, `execute_tool`, approval waits and
 * compactions — is a child of that root, in every process that works on the run: a process that
 * dies mid-run loses only its spans still open, and no exported span ever names a parent that
 * was not exported (no orphans after a crash or a takeover).
 *
 * @example
 * const run = startRun(tracing, { runId, agentName: "agent", conversationId, provider: "openai", model: "gpt-4o" });
 */
export function startRun(tracing: RunTracing, info: TelemetryRunInfo): TelemetryRun {
  // A backend that fails (a host's provider, processor or meter) drops the report, never the run (OBS-1).
  try {
    return new OtelRun(tracing, info);
  } catch {
    return DROPPED_RUN;
  }
}

type Attributes = Record<string, string | number | boolean>;

/** A run's part: its `invoke_agent` span, and the factory of the run's other spans. */
class OtelRun implements TelemetryRun {
  readonly captureContent: boolean;
  private readonly calls: RunCalls;
  private readonly segment: TelemetrySpan;
  private readonly rootCarrier: TelemetryCarrier | null;
  private status = "completed";

  constructor(private readonly tracing: RunTracing, private readonly info: TelemetryRunInfo) {
    const { tracer, metrics } = tracing;
    this.captureContent = tracing.captureContent;
    const common: Attributes = { "gen_ai.conversation.id": info.conversationId, "gen_ai.agent.name": info.agentName, "steamharness.run.id": info.runId };
    const modelAttributes = { "gen_ai.provider.name": info.provider, "gen_ai.request.model": info.model };
    let parent: Context;
    let rootCarrier = info.stored ?? null;
    if (rootCarrier) parent = contextOf(rootCarrier);
    else {
      const root = tracer.startSpan("steamharness.run", { kind: SpanKind.INTERNAL, attributes: { ...common, ...modelAttributes } }, info.parent ? contextOf(info.parent) : contexts.active());
      const wrapped = wrapSpan(root);
      rootCarrier = wrapped.carrier();
      parent = trace.setSpan(contexts.active(), root);
      wrapped.end();
      tracing.flushSoon();
    }
    this.rootCarrier = rootCarrier;
    const chatMetric: Attributes = { "gen_ai.operation.name": "chat", ...modelAttributes, "gen_ai.response.model": info.model };
    this.calls = {
      tracer,
      metrics,
      parent,
      model: info.model,
      chatName: `chat ${info.model}`,
      chatStart: { "gen_ai.operation.name": "chat", ...modelAttributes },
      toolStart: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.type": "function" },
      common,
      chatMetric,
      tokenInput: { ...chatMetric, "gen_ai.token.type": "input" },
      tokenOutput: { ...chatMetric, "gen_ai.token.type": "output" },
      content: tracing.content,
    };
    const agent = this.child(`invoke_agent ${info.agentName}`, { "gen_ai.operation.name": "invoke_agent", ...modelAttributes });
    if (info.resumedAfter) agent.addEvent("steamharness.run.resumed", { "steamharness.run.resumed_after": info.resumedAfter, ...(info.resumedAfter === "interrupted" ? { "steamharness.run.recovered": true } : {}) });
    this.segment = wrapSpan(agent, (seconds, error) => metrics.runDuration.record(seconds, clean({ "gen_ai.agent.name": info.agentName, "steamharness.run.status": this.status, "error.type": error })));
  }

  /** A span under the run's root with the run's common attributes (not per step: approval waits, compactions, the part). */
  private child(name: string, attributes: TelemetryAttributes, startTime?: number) {
    return this.tracing.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes: clean({ ...this.calls.common, ...attributes }), ...(startTime === undefined ? {} : { startTime }) }, this.calls.parent);
  }

  event(name: string, attributes?: TelemetryAttributes): void {
    this.segment.event(name, attributes);
  }

  set(attributes: TelemetryAttributes): void {
    this.segment.set(attributes);
  }

  end(outcome?: { error?: string; attributes?: TelemetryAttributes }): void {
    this.segment.end(outcome);
  }

  carrier(): TelemetryCarrier | null {
    return this.segment.carrier();
  }

  root(): TelemetryCarrier | null {
    return this.rootCarrier;
  }

  finish(outcome: { status: string; error?: string; usage?: TokenCounts }): void {
    this.status = outcome.status;
    this.segment.end({
      ...(outcome.error ? { error: outcome.error } : {}),
      attributes: {
        "steamharness.run.status": outcome.status,
        ...(outcome.usage ? { "gen_ai.usage.input_tokens": outcome.usage.input, "gen_ai.usage.output_tokens": outcome.usage.output } : {}),
      },
    });
  }

  modelCall(call: { step: number; attempt: number; input?: unknown }): TelemetryModelCall {
    try {
      return new ChatSpan(this.calls, call);
    } catch {
      return DROPPED_SPAN;
    }
  }

  toolCall(call: { name: string; callId: string; arguments?: unknown }): TelemetrySpan {
    try {
      return new ToolSpan(this.calls, call);
    } catch {
      return DROPPED_SPAN;
    }
  }

  approvalWait({ kind, toolName, callId, startedAt }: { kind: "tool_approval" | "question"; toolName: string; callId: string; startedAt?: number }): TelemetrySpan {
    try {
      const span = this.child("steamharness.approval.wait", { "steamharness.approval.kind": kind, "gen_ai.tool.name": toolName, "gen_ai.tool.call.id": callId }, startedAt);
      let outcome = "unknown";
      const began = startedAt ?? Date.now();
      const metrics = this.tracing.metrics;
      const wrapped = wrapSpan(span, (_seconds, error) => metrics.approvalWait.record((Date.now() - began) / 1000, clean({ "steamharness.approval.kind": kind, "steamharness.approval.outcome": outcome, "error.type": error })));
      return {
        event: (name, attributes) => wrapped.event(name, attributes),
        set: (attributes) => wrapped.set(attributes),
        carrier: () => wrapped.carrier(),
        end(result) {
          const decided = result?.attributes?.["steamharness.approval.outcome"];
          if (typeof decided === "string") outcome = decided;
          wrapped.end(result);
        },
      };
    } catch {
      return DROPPED_SPAN;
    }
  }

  compaction({ step, trigger }: { step: number; trigger: string }): TelemetrySpan {
    try {
      return wrapSpan(this.child("steamharness.compaction", { "steamharness.step": step, "steamharness.compaction.trigger": trigger }));
    } catch {
      return DROPPED_SPAN;
    }
  }

  lease(lease: TelemetryLeaseInfo): void {
    try {
      this.segment.event(`steamharness.lease.${lease.event}`, leaseAttributes(lease));
    } catch {
      // dropped
    }
  }

  retry({ kind, attempt, max, status: httpStatus, message }: { kind: string; attempt: number; max: number; status?: number; message: string }): void {
    try {
      this.segment.event("steamharness.model.retry", { "steamharness.retry.kind": kind, "steamharness.attempt": attempt, "steamharness.retry.max": max, "http.response.status_code": httpStatus, "error.type": kind, "exception.message": this.tracing.content(message) ?? undefined });
    } catch {
      // dropped
    }
  }
}
