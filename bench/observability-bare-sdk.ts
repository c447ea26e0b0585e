/**
 * The floor of tracing's cost (issue 27, OBS), for bench/observability-calls-loop.ts's `bare`
 * modes: the spans and metric points one step of the durable tool loop reports — a `chat` span
 * with its token-usage and operation-duration points, an `execute_tool` span — and those of each
 * run (the `steamharness.run` root, flushed at once, and the `invoke_agent` part with its
 * run-duration point), made directly with the OpenTelemetry API on the host's SDK, no
 * steamharness code: no port, no wrappers, no guards, attribute sets built once per run.
 * test/observability/bench-floor.test.ts checks that it exports exactly what the adapter exports.
 *   start  each span's attributes given at `startSpan` (one object)
 *   set    only the creation-time attributes at `startSpan`, the rest by `setAttribute` (what
 *          the adapter does: the SDK copies and checks start attributes twice)
 */
import { context, SpanKind, trace, type Attributes, type Meter, type Tracer } from "@opentelemetry/api";

/** One run's steps, as the bench drives them. */
export interface BareRun {
  step(step: number, usage: { input: number; output: number }, durationSeconds?: number): void;
  finish(usage: { input: number; output: number }): void;
}

/** Where the floor's spans and points go; `flush` is the provider's `forceFlush` (the run-start flush). */
export interface BareSdk {
  tracer: Tracer;
  meter: Meter;
  flush?: () => Promise<void>;
}

const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/**
 * The floor's factory of runs on `sdk`, attributes given the `placement` way.
 *
 * @example
 * const runs = bareSdkRuns({ tracer, meter, flush: () => provider.forceFlush() }, "set");
 * const run = runs("run-1", "offline", "offline-model", "lookup");
 */
export function bareSdkRuns(sdk: BareSdk, placement: "start" | "set") {
  const { tracer, meter } = sdk;
  const tokenUsage = meter.createHistogram("gen_ai.client.token.usage", { unit: "{token}", description: "Number of input and output tokens used.", advice: { explicitBucketBoundaries: TOKEN_BUCKETS } });
  const operationDuration = meter.createHistogram("gen_ai.client.operation.duration", { unit: "s", description: "GenAI operation duration.", advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
  const runDuration = meter.createHistogram("steamharness.run.duration", { unit: "s", description: "Duration of one part of an agent run (one process's work on it)." });
  // The run-start flush as the adapter schedules it: at most one in flight, one more after it.
  let inFlight = false;
  let again = false;
  const flush = (): void => {
    if (!sdk.flush) return;
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    again = false;
    void sdk.flush().catch(() => undefined).then(() => {
      inFlight = false;
      if (again) flush();
    });
  };
  return (runId: string, provider: string, model: string, toolName: string): BareRun => {
    const common = { "gen_ai.conversation.id": runId, "gen_ai.agent.name": "agent", "steamharness.run.id": runId };
    const modelAttributes = { "gen_ai.provider.name": provider, "gen_ai.request.model": model };
    const root = tracer.startSpan("steamharness.run", { kind: SpanKind.INTERNAL, attributes: { ...common, ...modelAttributes } }, context.active());
    const parent = trace.setSpan(context.active(), root);
    root.end();
    flush();
    const agentStarted = performance.now();
    const agent = tracer.startSpan(`invoke_agent agent`, { kind: SpanKind.INTERNAL, attributes: { ...common, "gen_ai.operation.name": "invoke_agent", ...modelAttributes } }, parent);
    const chatName = `chat ${model}`;
    const chatStart = { "gen_ai.operation.name": "chat", ...modelAttributes };
    const toolStart = { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.type": "function" };
    const toolSpanName = `execute_tool ${toolName}`;
    const chatMetric = { "gen_ai.operation.name": "chat", ...modelAttributes, "gen_ai.response.model": model };
    const tokenInput = { ...chatMetric, "gen_ai.token.type": "input" };
    const tokenOutput = { ...chatMetric, "gen_ai.token.type": "output" };
    const startAll = placement === "start";
    return {
      step(step, usage, durationSeconds) {
        const started = performance.now();
        const chatEnd: Attributes = { "gen_ai.response.model": model, "gen_ai.response.finish_reasons": "toolUse", "gen_ai.usage.input_tokens": usage.input, "gen_ai.usage.output_tokens": usage.output };
        const chat = startAll
          ? tracer.startSpan(chatName, { kind: SpanKind.CLIENT, attributes: { ...chatStart, ...common, "steamharness.step": step, "steamharness.attempt": 1 } }, parent)
          : tracer.startSpan(chatName, { kind: SpanKind.CLIENT, attributes: chatStart }, parent).setAttributes(common).setAttribute("steamharness.step", step).setAttribute("steamharness.attempt", 1);
        tokenUsage.record(usage.input, tokenInput);
        tokenUsage.record(usage.output, tokenOutput);
        chat.setAttributes(chatEnd);
        chat.end();
        operationDuration.record(durationSeconds ?? (performance.now() - started) / 1000, chatMetric);
        const callId = `call-${step}`;
        const tool = startAll
          ? tracer.startSpan(toolSpanName, { kind: SpanKind.INTERNAL, attributes: { ...toolStart, ...common, "gen_ai.tool.name": toolName, "gen_ai.tool.call.id": callId } }, parent)
          : tracer.startSpan(toolSpanName, { kind: SpanKind.INTERNAL, attributes: toolStart }, parent).setAttributes(common).setAttribute("gen_ai.tool.name", toolName).setAttribute("gen_ai.tool.call.id", callId);
        tool.end();
      },
      finish(usage) {
        agent.setAttributes({ "steamharness.run.status": "waiting", "gen_ai.usage.input_tokens": usage.input, "gen_ai.usage.output_tokens": usage.output });
        agent.end();
        runDuration.record((performance.now() - agentStarted) / 1000, { "gen_ai.agent.name": "agent", "steamharness.run.status": "waiting" });
      },
    };
  };
}
