import { SteamharnessError } from "../../domain/errors.js";
import { runEventId, usageEntryId } from "../../domain/agent/ids.js";
import { compactedTranscript, foldMessages } from "../../domain/session-host/compaction.js";
import type { OutputItemStreamChunk } from "../../domain/output-items.js";
import type { TokenUsageEntry, TokenCounts } from "../../ports/token-usage.js";
import { DEFAULT_SUMMARY_TOKENS, writeSummary } from "./compaction-summary.js";
import type { CompactionStepRun } from "./turn-parts.js";

export { COMPACTION_PROMPT } from "./compaction-summary.js";

/** Default share of the context window at which a run compacts (SES-7). */
export const DEFAULT_COMPACTION_THRESHOLD = 0.9;

/** The step index usage entries of compaction requests use, apart from model steps. */
export const COMPACTION_USAGE_OFFSET = 1_000_000;

/**
 * The usage entry of a compaction request, or `null` when the response reported none.
 *
 * @example
 * compactionUsageEntry(usage, { runId, step: 0, provider, model, at: clock.now() })
 */
export function compactionUsageEntry(usage: TokenCounts | null, at: { runId: string; step: number; provider: string; model: string; at: number }): TokenUsageEntry | null {
  if (!usage || usage.total + usage.input + usage.output <= 0) return null;
  return { ...usage, entryId: usageEntryId(at.runId, COMPACTION_USAGE_OFFSET + at.step, 0), runId: at.runId, provider: at.provider, model: at.model, at: at.at };
}

/**
 * SES-7: before model request `step`, compacts the context when it reached the threshold. The
 * model writes the summary (SES-11: bounded by `compaction.summaryTokens`; the mechanical fold
 * only when the model fails, recorded as `source: "fallback"` with the reason); the compaction
 * is one event plus a snapshot at that input boundary (the log itself is never rewritten), so
 * later runs start from the summary and a resumed run replays the same compaction without
 * asking the model again. The ring is recalibrated.
 *
 * @example
 * const compacted = yield* compactionStep(turn, step);
 */
export async function* compactionStep(turn: CompactionStepRun, step: number): AsyncGenerator<OutputItemStreamChunk, boolean, undefined> {
  const eventId = runEventId(turn.runId, "compact", step);
  let event = turn.committed.get(eventId);
  if (event?.type !== "compaction") {
    const setting = turn.options.compaction;
    if (setting === false || turn.committed.has(runEventId(turn.runId, "model", step))) return false;
    const threshold = setting?.threshold ?? DEFAULT_COMPACTION_THRESHOLD;
    const usedBefore = turn.meter.usage().used;
    if (usedBefore < threshold * turn.meter.usage().total || turn.messages.length < 2) return false;
    const span = turn.telemetry.compaction({ step, trigger: "threshold" });
    const outcome = await writeSummary(turn.model, turn.messages, { requestId: eventId, signal: turn.context.signal, budget: setting?.summaryTokens ?? DEFAULT_SUMMARY_TOKENS }).catch((error: unknown) => {
      span.end({ error: "compaction_failed" });
      throw error;
    });
    span.end({ attributes: { "steamharness.compaction.source": outcome.ok ? "model" : "fallback" } });
    const summary = outcome.ok ? outcome.summary : foldMessages(turn.messages);
    const { messages } = outcome.ok ? compactedTranscript(`Summary of the conversation so far (compacted):\n\n${summary}`, []) : compactedTranscript(summary, []);
    const usage = compactionUsageEntry(outcome.usage, { runId: turn.runId, step, provider: turn.model.descriptor.provider, model: turn.model.descriptor.model, at: turn.context.clock.now() });
    await turn.append([
      { eventId, runId: turn.runId, type: "compaction", payload: { step, summary, messages, usedBefore, source: outcome.ok ? "model" : "fallback", ...(outcome.ok ? {} : { reason: outcome.reason }) } },
      ...(usage ? [{ eventId: `${eventId}/usage`, runId: turn.runId, type: "usage" as const, payload: { entry: usage } }] : []),
    ]);
    event = turn.committed.get(eventId);
    if (event?.type !== "compaction") throw new SteamharnessError("storage_failure", "the compaction was not stored");
  }
  const usageEvent = turn.committed.get(`${eventId}/usage`);
  if (usageEvent?.type === "usage") {
    for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) turn.usage[key] += usageEvent.payload.entry[key];
    await turn.context.tokenUsage.record(usageEvent.payload.entry);
  }
  // Written (again, idempotently) on replay too: a crash between the event and the snapshot heals.
  const head = await turn.store.head();
  if ((head.snapshot?.atSeq ?? 0) < event.seq) await turn.store.putSnapshot({ atSeq: event.seq, state: { messages: event.payload.messages } });
  turn.messages = [...event.payload.messages];
  turn.meter.reset();
  turn.meter.add(JSON.stringify(turn.messages));
  const { source, reason } = event.payload;
  yield* turn.projector.compaction({ summary: event.payload.summary, usedBefore: event.payload.usedBefore, usedAfter: turn.meter.usage().used, ...(source ? { source } : {}), ...(reason ? { reason } : {}) });
  yield* turn.projector.ring(turn.meter.usage());
  return true;
}
