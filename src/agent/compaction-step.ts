import { SteamharnessError } from "../domain/errors.js";
import { runEventId, usageEntryId } from "../domain/agent/ids.js";
import type { OutputItemStreamChunk } from "../domain/output-items.js";
import type { ModelMessage, ModelRequest, ModelResponse } from "../ports/model-provider.js";
import type { TokenUsageEntry } from "../ports/token-usage.js";
import type { Turn } from "./turn.js";

/** Default share of the context window at which a run compacts (SES-7). */
export const DEFAULT_COMPACTION_THRESHOLD = 0.9;

/** What the model is asked for when it summarises the conversation. */
export const COMPACTION_PROMPT =
  "The conversation is about to exceed the context window. Summarise it for yourself so you can continue the current task: the user's goals and instructions, decisions made, files and data touched, tool results that still matter, and what remains to do. Answer with the summary only.";

/** The step index usage entries of compaction requests use, apart from model steps. */
const COMPACTION_USAGE_OFFSET = 1_000_000;

async function summarise(turn: Turn, step: number): Promise<{ summary: string; usage: TokenUsageEntry | null }> {
  const request: ModelRequest = {
    requestId: runEventId(turn.runId, "compact", step),
    systemPrompt: COMPACTION_PROMPT,
    messages: [...turn.messages, { role: "user", content: COMPACTION_PROMPT }],
    tools: [],
  };
  let done: ModelResponse | null = null;
  for await (const event of turn.model.stream(request, turn.context.signal)) if (event.type === "done") done = event.response;
  if (!done || done.stopReason === "error" || done.stopReason === "aborted") {
    if (turn.context.signal.aborted) throw new SteamharnessError("cancelled", "the agent run was cancelled");
    throw new SteamharnessError("model_error", `compaction failed: ${done?.errorMessage ?? "no response"}`);
  }
  const summary = done.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n").trim();
  const usage = done.usage.total > 0 || done.usage.input + done.usage.output > 0
    ? { ...done.usage, entryId: usageEntryId(turn.runId, COMPACTION_USAGE_OFFSET + step, 0), runId: turn.runId, provider: turn.model.descriptor.provider, model: turn.model.descriptor.model, at: turn.context.clock.now() }
    : null;
  return { summary, usage };
}

/**
 * SES-7: before model request `step`, compacts the context when it reached the threshold. The
 * model writes the summary; the compaction is one event plus a snapshot at that input boundary
 * (the log itself is never rewritten), so later runs start from the summary and a resumed run
 * replays the same compaction without asking the model again. The ring is recalibrated.
 *
 * @example
 * const compacted = yield* compactionStep(turn, step);
 */
export async function* compactionStep(turn: Turn, step: number): AsyncGenerator<OutputItemStreamChunk, boolean, undefined> {
  const eventId = runEventId(turn.runId, "compact", step);
  let event = turn.committed.get(eventId);
  if (event?.type !== "compaction") {
    const setting = turn.options.compaction;
    if (setting === false || turn.committed.has(runEventId(turn.runId, "model", step))) return false;
    const threshold = setting?.threshold ?? DEFAULT_COMPACTION_THRESHOLD;
    const usedBefore = turn.meter.usage().used;
    if (usedBefore < threshold * turn.meter.usage().total || turn.messages.length < 2) return false;
    const { summary, usage } = await summarise(turn, step);
    const messages: ModelMessage[] = [{ role: "user", content: `Summary of the conversation so far (compacted):\n\n${summary}` }];
    await turn.append([
      { eventId, runId: turn.runId, type: "compaction", payload: { step, summary, messages, usedBefore } },
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
  yield* turn.projector.compaction({ summary: event.payload.summary, usedBefore: event.payload.usedBefore, usedAfter: turn.meter.usage().used });
  yield* turn.projector.ring(turn.meter.usage());
  return true;
}
