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
 * Compacts a transcript (SES-7 manual compact): the messages before the boundary are folded into
 * one summary message, the last `keepLast` (rounded to an input boundary) stay verbatim. The
 * session's events are never touched: the host stores the result as a snapshot, so the full
 * transcript stays in the log. Returns `null` when there is nothing to fold.
 *
 * @example
 * compactTranscript(messages, 6)?.messages.length
 */
export function compactTranscript(messages: readonly ModelMessage[], keepLast: number): SessionTranscriptState | null {
  const boundary = compactionBoundary(messages, keepLast);
  if (boundary === 0) return null;
  const lines = messages.slice(0, boundary).map((message) => {
    const text = messageText(message).replace(/\s+/g, " ").trim();
    const cut = text.length > SUMMARY_CHARS_PER_MESSAGE ? `${text.slice(0, SUMMARY_CHARS_PER_MESSAGE)}…` : text;
    return `- ${message.role}: ${cut}`;
  });
  const summary: ModelMessage = {
    role: "user",
    content: `Summary of the earlier conversation (compacted; ${boundary} messages):\n${lines.join("\n")}`,
  };
  return { messages: completeToolResults([summary, ...messages.slice(boundary)]) };
}
