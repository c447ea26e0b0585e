import { context as contexts, SpanKind, trace, type Context, type Tracer } from "@opentelemetry/api";
import type { TelemetryModelCall, TelemetryRun, TelemetryRunInfo, TelemetrySpan } from "../../../ports/telemetry.js";
import type { RunMetrics } from "./otel-metrics.js";
import { DROPPED_RUN, DROPPED_SPAN, guarded } from "./otel-guard.js";
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
  // A backend that fails (a host's provider, processor or meter) drops the report, never the run
  // (OBS-1). Plain try/catch, not a closure per call: these run on every step.
  let run: TelemetryRun;
  try {
    run = openRun(tracing, info);
  } catch {
    return DROPPED_RUN;
  }
  return {
    ...run,
    modelCall(call) {
      try {
        return run.modelCall(call);
      } catch {
        return DROPPED_SPAN;
      }
    },
    toolCall(call) {
      try {
        return run.toolCall(call);
      } catch {
        return DROPPED_SPAN;
      }
    },
    approvalWait: (wait) => guarded(() => run.approvalWait(wait), DROPPED_SPAN),
    compaction: (compaction) => guarded(() => run.compaction(compaction), DROPPED_SPAN),
    retry: (retry) => guarded(() => run.retry(retry), undefined),
    lease: (lease) => guarded(() => run.lease(lease), undefined),
    finish: (outcome) => guarded(() => run.finish(outcome), undefined),
  };
}

type Attributes = Record<string, string | number | boolean>;

function openRun(tracing: RunTracing, info: TelemetryRunInfo): TelemetryRun {
  const { tracer, metrics } = tracing;
  const common = { "gen_ai.conversation.id": info.conversationId, "gen_ai.agent.name": info.agentName, "steamharness.run.id": info.runId };
  const modelAttributes = { "gen_ai.provider.name": info.provider, "gen_ai.request.model": info.model };
  // Built once per run, not per step (the overhead budget is 0.1 ms a step): the span names and
  // the metric attribute sets of the usual case (the response model is the requested one).
  const chatName = `chat ${info.model}`;
  const chatMetric: Attributes = { "gen_ai.operation.name": "chat", ...modelAttributes, "gen_ai.response.model": info.model };
  const tokenInput: Attributes = { ...chatMetric, "gen_ai.token.type": "input" };
  const tokenOutput: Attributes = { ...chatMetric, "gen_ai.token.type": "output" };
  let rootContext: Context;
  let rootCarrier = info.stored ?? null;
  if (rootCarrier) rootContext = contextOf(rootCarrier);
  else {
    const root = tracer.startSpan("steamharness.run", { kind: SpanKind.INTERNAL, attributes: { ...common, ...modelAttributes } }, info.parent ? contextOf(info.parent) : contexts.active());
    const wrapped = wrapSpan(root);
    rootCarrier = wrapped.carrier();
    rootContext = trace.setSpan(contexts.active(), root);
    wrapped.end();
    tracing.flushSoon();
  }
  const child = (name: string, kind: SpanKind, attributes: Record<string, string | number | boolean | undefined>, startTime?: number) =>
    tracer.startSpan(name, { kind, attributes: clean({ ...common, ...attributes }), ...(startTime === undefined ? {} : { startTime }) }, rootContext);
  /** Content as an attribute on `attributes` when it is captured. */
  const withContent = (attributes: Attributes, key: string, value: unknown): Attributes => {
    if (value === undefined) return attributes;
    const content = tracing.content(value);
    if (content !== undefined) attributes[key] = content;
    return attributes;
  };

  const agent = child(`invoke_agent ${info.agentName}`, SpanKind.INTERNAL, { "gen_ai.operation.name": "invoke_agent", ...modelAttributes });
  if (info.resumedAfter) agent.addEvent("steamharness.run.resumed", { "steamharness.run.resumed_after": info.resumedAfter, ...(info.resumedAfter === "interrupted" ? { "steamharness.run.recovered": true } : {}) });
  const segment = wrapSpan(agent, (seconds, error) => metrics.runDuration.record(seconds, clean({ "gen_ai.agent.name": info.agentName, "steamharness.run.status": status, "error.type": error })));
  let status = "completed";

  return {
    ...segment,
    captureContent: tracing.captureContent,
    root: () => rootCarrier,
    finish(outcome) {
      status = outcome.status;
      segment.end({
        ...(outcome.error ? { error: outcome.error } : {}),
        attributes: {
          "steamharness.run.status": outcome.status,
          ...(outcome.usage ? { "gen_ai.usage.input_tokens": outcome.usage.input, "gen_ai.usage.output_tokens": outcome.usage.output } : {}),
        },
      });
    },
    modelCall({ step, attempt, input }): TelemetryModelCall {
      // Literal objects (no spread): the SDK copies them key by key, fastest for a fixed shape.
      const attributes: Attributes = {
        "gen_ai.conversation.id": info.conversationId,
        "gen_ai.agent.name": info.agentName,
        "steamharness.run.id": info.runId,
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": info.provider,
        "gen_ai.request.model": info.model,
        "steamharness.step": step,
        "steamharness.attempt": attempt,
      };
      const span = tracer.startSpan(chatName, { kind: SpanKind.CLIENT, attributes: withContent(attributes, "gen_ai.input.messages", input) }, rootContext);
      let metric = chatMetric;
      const wrapped = wrapSpan(span, (seconds, error) => metrics.operationDuration.record(seconds, error ? { ...metric, "error.type": error } : metric));
      return {
        ...wrapped,
        finish(outcome) {
          const responseModel = outcome.responseModel ?? info.model;
          const usage = outcome.usage;
          const same = responseModel === info.model;
          if (!same) metric = { ...chatMetric, "gen_ai.response.model": responseModel };
          if (usage.input > 0 || usage.output > 0) {
            metrics.tokenUsage.record(usage.input, same ? tokenInput : { ...metric, "gen_ai.token.type": "input" });
            metrics.tokenUsage.record(usage.output, same ? tokenOutput : { ...metric, "gen_ai.token.type": "output" });
          }
          const ended: Attributes = {
            "gen_ai.response.model": responseModel,
            "gen_ai.response.finish_reasons": outcome.finishReason,
            "gen_ai.usage.input_tokens": usage.input,
            "gen_ai.usage.output_tokens": usage.output,
          };
          if (usage.cacheRead > 0) ended["gen_ai.usage.cache_read.input_tokens"] = usage.cacheRead;
          if (usage.cacheWrite > 0) ended["gen_ai.usage.cache_creation.input_tokens"] = usage.cacheWrite;
          withContent(ended, "gen_ai.output.messages", outcome.output);
          wrapped.end(outcome.error ? { error: outcome.error, attributes: ended } : { attributes: ended });
        },
      };
    },
    toolCall({ name, callId, arguments: args }): TelemetrySpan {
      const attributes: Attributes = {
        "gen_ai.conversation.id": info.conversationId,
        "gen_ai.agent.name": info.agentName,
        "steamharness.run.id": info.runId,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": callId,
        "gen_ai.tool.type": "function",
      };
      const span = tracer.startSpan(`execute_tool ${name}`, { kind: SpanKind.INTERNAL, attributes: withContent(attributes, "gen_ai.tool.call.arguments", args) }, rootContext);
      const wrapped = wrapSpan(span);
      return {
        ...wrapped,
        end(outcome) {
          const result = outcome?.attributes?.result;
          if (result === undefined) return wrapped.end(outcome);
          const { result: _result, ...rest } = outcome!.attributes!;
          wrapped.end({ ...(outcome?.error ? { error: outcome.error } : {}), attributes: withContent(rest as Attributes, "gen_ai.tool.call.result", result) });
        },
      };
    },
    approvalWait({ kind, toolName, callId, startedAt }): TelemetrySpan {
      const span = child("steamharness.approval.wait", SpanKind.INTERNAL, { "steamharness.approval.kind": kind, "gen_ai.tool.name": toolName, "gen_ai.tool.call.id": callId }, startedAt);
      let outcome = "unknown";
      const began = startedAt ?? Date.now();
      const wrapped = wrapSpan(span, (_seconds, error) => metrics.approvalWait.record((Date.now() - began) / 1000, clean({ "steamharness.approval.kind": kind, "steamharness.approval.outcome": outcome, "error.type": error })));
      return {
        ...wrapped,
        end(result) {
          const decided = result?.attributes?.["steamharness.approval.outcome"];
          if (typeof decided === "string") outcome = decided;
          wrapped.end(result);
        },
      };
    },
    compaction({ step, trigger }) {
      return wrapSpan(child("steamharness.compaction", SpanKind.INTERNAL, { "steamharness.step": step, "steamharness.compaction.trigger": trigger }));
    },
    lease(lease) {
      segment.event(`steamharness.lease.${lease.event}`, leaseAttributes(lease));
    },
    retry({ kind, attempt, max, status: httpStatus, message }) {
      segment.event("steamharness.model.retry", { "steamharness.retry.kind": kind, "steamharness.attempt": attempt, "steamharness.retry.max": max, "http.response.status_code": httpStatus, "error.type": kind, "exception.message": tracing.content(message) ?? undefined });
    },
  };
}
