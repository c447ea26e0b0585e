import type { ModelMessage } from "../../ports/model-provider.js";
import { completeToolResults } from "../agent/history.js";

/** The state a host writes as a session snapshot: the transcript the next run starts from. */
export interface SessionTranscriptState {
  messages: ModelMessage[];
}

/** At most this many characters of each older message go into the summary. */
const SUMMARY_CHARS_PER_MESSAGE = 400;

function messageText(message: ModelMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((block) => (block.type === "text" ? block.text : block.type === "toolCall" ? `[called ${block.name}]` : ""))
    .filter((text) => text !== "")
    .join(" ");
}

/**
 * Where a transcript may be cut so the kept tail starts at an input boundary (a user message):
 * a tail that started inside a tool exchange would leave a result without its call (SES-7).
 * Returns the index of the first kept message; `messages.length` keeps nothing.
 *
 * @example
 * compactionBoundary(messages, 6)
 */
export function compactionBoundary(messages: readonly ModelMessage[], keepLast: number): number {
  let start = Math.max(0, messages.length - keepLast);
  while (start < messages.length && messages[start]!.role !== "user") start++;
  return start;
}

/**
 * The mechanical fold (SES-7, SES-11 fallback): each message's text cut to 400 characters, one
 * line per message. Used only when the model cannot write the summary.
 *
 * @example
 * foldMessages(messages.slice(0, boundary))
 */
export function foldMessages(messages: readonly ModelMessage[]): string {
  const lines = messages.map((message) => {
    const text = messageText(message).replace(/\s+/g, " ").trim();
    const cut = text.length > SUMMARY_CHARS_PER_MESSAGE ? `${text.slice(0, SUMMARY_CHARS_PER_MESSAGE)}…` : text;
    return `- ${message.role}: ${cut}`;
  });
  return `Summary of the earlier conversation (compacted; ${messages.length} messages):\n${lines.join("\n")}`;
}

/**
 * The transcript after a compaction: the summary as one user message, then the kept tail
 * (tool results completed, so no call is left without its result). The session's events are
 * never touched: the caller stores this as a snapshot beside a `compaction` event.
 *
 * @example
 * compactedTranscript(summary, messages.slice(boundary))
 */
export function compactedTranscript(summary: string, tail: readonly ModelMessage[]): SessionTranscriptState {
  return { messages: completeToolResults([{ role: "user", content: summary }, ...tail]) };
}

/**
 * Compacts a transcript mechanically: the messages before the boundary are folded by
 * {@link foldMessages}, the last `keepLast` (rounded to an input boundary) stay verbatim.
 * Returns `null` when there is nothing to fold.
 *
 * @example
 * compactTranscript(messages, 6)?.messages.length
 */
export function compactTranscript(messages: readonly ModelMessage[], keepLast: number): SessionTranscriptState | null {
  const boundary = compactionBoundary(messages, keepLast);
  if (boundary === 0) return null;
  return compactedTranscript(foldMessages(messages.slice(0, boundary)), messages.slice(boundary));
}
