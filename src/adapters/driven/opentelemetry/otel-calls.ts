import { SpanKind, type Context, type Tracer } from "@opentelemetry/api";
import type { TelemetryAttributes, TelemetryModelCall } from "../../../ports/telemetry.js";
import type { RunMetrics } from "./otel-metrics.js";
import { OtelSpan } from "./otel-span.js";

type Attributes = Record<string, string | number | boolean>;

/**
 * What the per-step spans of one run share, built once per run (the overhead budget is 0.1 ms a
 * step): the parent context, the span names' parts, and frozen attribute sets handed to the SDK
 * as they are (it copies them; nothing here is allocated per step).
 */
export interface RunCalls {
  tracer: Tracer;
  metrics: RunMetrics;
  /** The run's root: every per-step span is its child (OBS-4). */
  parent: Context;
  model: string;
  chatName: string;
  /** What samplers may look at, given at creation (the GenAI conventions ask for these there). */
  chatStart: Attributes;
  toolStart: Attributes;
  /** `gen_ai.conversation.id`, `gen_ai.agent.name`, `steamharness.run.id`: on every span. */
  common: Attributes;
  /** The metric attribute sets of the usual case (the response model is the requested one). */
  chatMetric: Attributes;
  tokenInput: Attributes;
  tokenOutput: Attributes;
  /** Content as an attribute value, redacted; undefined when capture is off. */
  content(value: unknown): string | undefined;
}

/**
 * Starts a span under the run's root: the creation-time attributes go through the SDK's
 * sampler path (which copies and checks them twice), the rest are set once right after.
 */
function child(calls: RunCalls, name: string, kind: SpanKind, start: Attributes) {
  const span = calls.tracer.startSpan(name, { kind, attributes: start }, calls.parent);
  const common = calls.common;
  for (const key in common) span.setAttribute(key, common[key]!);
  return span;
}

/**
 * A `chat` span (OBS-2): one model request; `finish` sets the response's attributes and records
 * the token-usage and operation-duration metrics.
 *
 * @example
 * const call = new ChatSpan(calls, { step: 1, attempt: 1 });
 */
export class ChatSpan extends OtelSpan implements TelemetryModelCall {
  private readonly started = performance.now();
  private metric: Attributes;

  constructor(private readonly calls: RunCalls, info: { step: number; attempt: number; input?: unknown }) {
    const span = child(calls, calls.chatName, SpanKind.CLIENT, calls.chatStart);
    span.setAttribute("steamharness.step", info.step);
    span.setAttribute("steamharness.attempt", info.attempt);
    if (info.input !== undefined) {
      const content = calls.content(info.input);
      if (content !== undefined) span.setAttribute("gen_ai.input.messages", content);
    }
    super(span);
    this.metric = calls.chatMetric;
  }

  /** {@inheritDoc TelemetryModelCall.finish} */
  finish(outcome: Parameters<TelemetryModelCall["finish"]>[0]): void {
    if (this.done) return;
    const { calls, span } = this;
    try {
      const responseModel = outcome.responseModel ?? calls.model;
      const usage = outcome.usage;
      const same = responseModel === calls.model;
      if (!same) this.metric = { ...calls.chatMetric, "gen_ai.response.model": responseModel };
      if (usage.input > 0 || usage.output > 0) {
        calls.metrics.tokenUsage.record(usage.input, same ? calls.tokenInput : { ...this.metric, "gen_ai.token.type": "input" });
        calls.metrics.tokenUsage.record(usage.output, same ? calls.tokenOutput : { ...this.metric, "gen_ai.token.type": "output" });
      }
      span.setAttribute("gen_ai.response.model", responseModel);
      span.setAttribute("gen_ai.response.finish_reasons", outcome.finishReason);
      span.setAttribute("gen_ai.usage.input_tokens", usage.input);
      span.setAttribute("gen_ai.usage.output_tokens", usage.output);
      if (usage.cacheRead > 0) span.setAttribute("gen_ai.usage.cache_read.input_tokens", usage.cacheRead);
      if (usage.cacheWrite > 0) span.setAttribute("gen_ai.usage.cache_creation.input_tokens", usage.cacheWrite);
      if (outcome.output !== undefined) {
        const content = calls.content(outcome.output);
        if (content !== undefined) span.setAttribute("gen_ai.output.messages", content);
      }
    } catch {
      // dropped; the span still ends
    }
    this.end(outcome.error ? { error: outcome.error } : undefined);
  }

  protected override ended(error: string | undefined): void {
    const seconds = (performance.now() - this.started) / 1000;
    this.calls.metrics.operationDuration.record(seconds, error ? { ...this.metric, "error.type": error } : this.metric);
  }
}

/**
 * An `execute_tool` span (OBS-2): one tool call; `end` maps `attributes.result` to
 * `gen_ai.tool.call.result` when content is captured (it is left out otherwise).
 *
 * @example
 * const span = new ToolSpan(calls, { name: "lookup", callId: "call-1" });
 */
export class ToolSpan extends OtelSpan {
  constructor(private readonly calls: RunCalls, info: { name: string; callId: string; arguments?: unknown }) {
    const span = child(calls, `execute_tool ${info.name}`, SpanKind.INTERNAL, calls.toolStart);
    span.setAttribute("gen_ai.tool.name", info.name);
    span.setAttribute("gen_ai.tool.call.id", info.callId);
    if (info.arguments !== undefined) {
      const content = calls.content(info.arguments);
      if (content !== undefined) span.setAttribute("gen_ai.tool.call.arguments", content);
    }
    super(span);
  }

  protected override setEnd(attributes: TelemetryAttributes): void {
    for (const key in attributes) {
      const value = attributes[key];
      if (value === undefined) continue;
      if (key !== "result") this.span.setAttribute(key, value);
      else {
        const content = this.calls.content(value);
        if (content !== undefined) this.span.setAttribute("gen_ai.tool.call.result", content);
      }
    }
  }
}
