import { estimateTokens, type ContextMeter } from "../../domain/agent/context-meter.js";
import { completeToolResults } from "../../domain/agent/history.js";
import { runEventId } from "../../domain/agent/ids.js";
import { createAgentOutputProjector } from "../../domain/agent/output-projector.js";
import { messagesFromEvents, type SessionEvent } from "../../domain/agent/session-events.js";
import { isSteamharnessError, SteamharnessError, wrapAdapterError } from "../../domain/errors.js";
import type { NodeContext } from "../../domain/node-context.js";
import { compactedTranscript, compactionBoundary, foldMessages } from "../../domain/session-host/compaction.js";
import type { ModelMessage, ModelProvider } from "../../ports/model-provider.js";
import type { SessionStore } from "../../ports/session-store.js";
import { compactionUsageEntry } from "./compaction-step.js";
import { DEFAULT_SUMMARY_TOKENS, writeSummary, type SummaryOutcome } from "./compaction-summary.js";
import { chooseRunModel } from "./run-model.js";
import { openSessionStore, sessionAddressOf } from "./session-resolver.js";
import type { AgentCompactInput, AgentCompactResult, AgentInternalOptions, AgentOptions } from "./types.js";

const MESSAGE_TYPES = ["user_message", "assistant_message", "tool_result"] as const;

/** The transcript the next run starts from: the latest snapshot plus the messages after it. */
async function transcriptOf(store: SessionStore): Promise<ModelMessage[]> {
  const head = await store.head();
  const state = head.snapshot?.state as { messages?: ModelMessage[] } | null | undefined;
  const events = await store.readAfter(head.snapshot?.atSeq ?? 0, { types: [...MESSAGE_TYPES] });
  return completeToolResults([...(state?.messages ?? []), ...messagesFromEvents(events)]);
}

/** The session's own model: the one its latest run used (AG-4), else the one a new run would pick. */
async function sessionModel(options: AgentOptions, store: SessionStore, context: NodeContext): Promise<ModelProvider> {
  const { lastRunId } = await store.head();
  const started = lastRunId === null ? null : await store.get(runEventId(lastRunId, "start"));
  return (await chooseRunModel(options, context, started?.type === "run_started" ? started.payload : null)).model;
}

async function summarise(options: AgentOptions, store: SessionStore, context: NodeContext, folded: ModelMessage[], requestId: string, input: AgentCompactInput): Promise<{ outcome: SummaryOutcome; model: ModelProvider | null }> {
  let model: ModelProvider;
  try {
    model = await sessionModel(options, store, context);
  } catch (error) {
    // No usable model (none configured, no key): the model failed as surely as an error response.
    if (context.signal.aborted || isSteamharnessError(error, "cancelled")) throw new SteamharnessError("cancelled", "the compaction was cancelled");
    return { outcome: { ok: false, reason: error instanceof Error ? error.message : String(error), usage: null }, model: null };
  }
  const budget = (options.compaction === false ? undefined : options.compaction?.summaryTokens) ?? DEFAULT_SUMMARY_TOKENS;
  const outcome = await writeSummary(model, folded, { requestId, signal: context.signal, budget, ...(input.instructions ? { instructions: input.instructions } : {}) });
  return { outcome, model };
}

/**
 * A manual compaction of the agent's session (SES-11, `agent.compact`): see `Agent.compact`.
 * The `compaction` event (with the summary request's usage, in one append) is the record; the
 * snapshot at it is what the next run reads. Both are idempotent by the compaction's run id: a
 * repeated call (or one after a crash between the two writes) applies the stored compaction
 * without asking the model again.
 *
 * @example
 * const result = await compactSession(options, meter, { instructions: "keep file names" }, context);
 */
export async function compactSession(options: AgentInternalOptions, meter: ContextMeter, input: AgentCompactInput, context: NodeContext): Promise<AgentCompactResult> {
  const keepLast = input.keepLast ?? 0;
  if (!Number.isInteger(keepLast) || keepLast < 0) throw new SteamharnessError("input_validation", "[steamharness] [agent] keepLast must be an integer ≥ 0", { field: "keepLast" });
  if (input.instructions !== undefined && typeof input.instructions !== "string") throw new SteamharnessError("input_validation", "[steamharness] [agent] instructions must be a string", { field: "instructions" });
  const runId = input.runId ?? context.runId;
  const address = sessionAddressOf(options, context);
  const { store, owned } = await openSessionStore(options, address, context, { prompt: "", runId });
  const guard = <T>(what: string, promise: Promise<T>): Promise<T> => promise.catch((error: unknown) => Promise.reject(isSteamharnessError(error, "cancelled") ? error : wrapAdapterError("session", what, error)));
  const projector = createAgentOutputProjector({ runId, sessionKey: address.sessionKey, answerItemId: null, projectId: context.projectId });
  const systemPrompt = options.systemPrompt ?? "";
  try {
    const eventId = runEventId(runId, "compact", 0);
    let event: SessionEvent | null = await guard("reading the session failed", store.get(eventId));
    if (event?.type !== "compaction") {
      const messages = await guard("reading the transcript failed", transcriptOf(store));
      const boundary = compactionBoundary(messages, keepLast);
      if (boundary === 0) {
        meter.measure(estimateTokens(`${systemPrompt}${JSON.stringify(messages)}`));
        return { compacted: false, source: null, summary: "", folded: 0, usage: meter.usage(), chunks: projector.ring(meter.usage()) };
      }
      const folded = messages.slice(0, boundary);
      const { outcome, model } = await summarise(options, store, context, folded, eventId, input);
      const summary = outcome.ok ? outcome.summary : foldMessages(folded);
      const heading = outcome.ok ? `Summary of the earlier conversation (compacted; ${boundary} messages):\n\n${summary}` : summary;
      const state = compactedTranscript(heading, messages.slice(boundary));
      const usage = model ? compactionUsageEntry(outcome.usage, { runId, step: 0, provider: model.descriptor.provider, model: model.descriptor.model, at: context.clock.now() }) : null;
      const payload = {
        step: 0,
        summary,
        messages: state.messages,
        usedBefore: estimateTokens(`${systemPrompt}${JSON.stringify(messages)}`),
        source: outcome.ok ? ("model" as const) : ("fallback" as const),
        ...(outcome.ok ? {} : { reason: outcome.reason }),
        manual: true,
        ...(input.instructions ? { instructions: input.instructions } : {}),
        folded: boundary,
      };
      const appended = await guard("appending the compaction failed", store.append([
        { eventId, runId, type: "compaction", payload },
        ...(usage ? [{ eventId: `${eventId}/usage`, runId, type: "usage" as const, payload: { entry: usage } }] : []),
        // The compaction's run ends with it: readers of the log (the viewer's run list) see it done.
        { eventId: runEventId(runId, "end"), runId, type: "run_finished", payload: { status: "completed", toolCallCount: 0 } },
      ]));
      event = appended.events[0] ?? null;
      if (usage) await context.tokenUsage.record(usage);
      if (model) meter.setTotal(model.descriptor.contextWindow);
    }
    if (event?.type !== "compaction") throw new SteamharnessError("storage_failure", "[steamharness] [session] the compaction was not stored");
    const head = await guard("reading the session head failed", store.head());
    if ((head.snapshot?.atSeq ?? 0) < event.seq) await guard("writing the snapshot failed", store.putSnapshot({ atSeq: event.seq, state: { messages: event.payload.messages } }));
    const transcript = await guard("reading the transcript failed", transcriptOf(store));
    meter.measure(estimateTokens(`${systemPrompt}${JSON.stringify(transcript)}`));
    const { source = "model", reason, summary, usedBefore, folded = 0 } = event.payload;
    const chunks = [
      ...projector.compaction({ summary, usedBefore, usedAfter: meter.usage().used, source, ...(reason ? { reason } : {}), manual: true, folded }),
      ...projector.ring(meter.usage()),
      ...projector.finish(),
    ];
    return { compacted: true, source, ...(reason ? { reason } : {}), summary, folded, usage: meter.usage(), chunks };
  } finally {
    if (owned) await store.close().catch(() => undefined);
  }
}
