import { estimateTokens } from "../../domain/agent/context-meter.js";
import { SteamharnessError } from "../../domain/errors.js";
import type { ModelMessage, ModelProvider } from "../../ports/model-provider.js";
import type { TokenCounts } from "../../ports/token-usage.js";
import { respondOnce } from "./respond-once.js";

/**
 * The system prompt of every compaction request (SES-7 automatic, SES-11 manual): the model
 * writes a summary of the conversation it is given, for itself, to continue from.
 */
export const COMPACTION_PROMPT =
  "You are compacting a conversation so it can continue in a smaller context. Summarise it for yourself so you can continue the current task: the user's goals and instructions, decisions made, files and data touched, tool results that still matter, and what remains to do. Answer with the summary only.";

/** The default bound of a summary, in tokens (`compaction.summaryTokens`). */
export const DEFAULT_SUMMARY_TOKENS = 2000;

/**
 * The user message that ends a compaction request, after the transcript: the budget, then the
 * person's own instructions (`/compact <instructions>`), if any.
 *
 * @example
 * compactionInstruction(2000, "keep the file names")
 */
export function compactionInstruction(budget: number, instructions?: string): string {
  const own = instructions?.trim() ? `\n\nInstructions for this summary: ${instructions.trim()}` : "";
  return `Summarise the conversation above as described. Keep the summary under ${budget} tokens.${own}`;
}

/** What {@link writeSummary} got: the model's summary, or why it could not write one. */
export type SummaryOutcome =
  | { ok: true; summary: string; truncated: boolean; usage: TokenCounts }
  | { ok: false; reason: string; usage: TokenCounts | null };

/** Options of {@link writeSummary}. */
export interface WriteSummaryOptions {
  requestId: string;
  signal: AbortSignal;
  budget: number;
  instructions?: string;
}

/**
 * Asks the model for a summary of `messages` (SES-11): the documented {@link COMPACTION_PROMPT}
 * as system prompt, the transcript, then {@link compactionInstruction}. A summary longer than
 * the budget is cut to it. A failed, aborted-by-the-provider or empty response, or a provider
 * that throws, is `ok: false` with the reason (the caller falls back to the mechanical fold);
 * a cancelled run throws `cancelled`.
 *
 * @example
 * const outcome = await writeSummary(model, messages, { requestId, signal, budget: 2000 });
 */
export async function writeSummary(model: ModelProvider, messages: readonly ModelMessage[], options: WriteSummaryOptions): Promise<SummaryOutcome> {
  const request = {
    requestId: options.requestId,
    systemPrompt: COMPACTION_PROMPT,
    messages: [...messages, { role: "user" as const, content: compactionInstruction(options.budget, options.instructions) }],
    tools: [],
  };
  const answer = await respondOnce(model, request, options.signal);
  if (options.signal.aborted) throw new SteamharnessError("cancelled", "the compaction was cancelled");
  const done = answer.response;
  const usage = done && done.usage.input + done.usage.output + done.usage.total > 0 ? done.usage : null;
  if (!answer.ok) return { ok: false, reason: answer.reason, usage };
  const text = answer.text.trim();
  if (text === "") return { ok: false, reason: "the model answered with an empty summary", usage };
  // ~4 characters a token, the meter's estimate: the stored summary never exceeds the budget.
  const truncated = estimateTokens(text) > options.budget;
  return { ok: true, summary: truncated ? `${text.slice(0, options.budget * 4 - 1)}…` : text, truncated, usage: answer.response.usage };
}
