import type { ModelMessage } from "../../ports/model-provider.js";

/** The text given to the model for a tool call whose run ended before it had a result. */
export const MISSING_RESULT_TEXT = "No result: the run ended before this tool call completed.";

/**
 * Makes a transcript valid for a model: every tool call of an assistant message gets a result
 * right after it. Calls of an earlier run that paused or failed before their result get an error
 * result saying so, since providers refuse a call without a result.
 *
 * @example
 * const messages = completeToolResults(history);
 */
export function completeToolResults(messages: readonly ModelMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    out.push(message);
    if (message.role !== "assistant") continue;
    const calls = message.content.filter((block) => block.type === "toolCall");
    if (calls.length === 0) continue;
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < messages.length && messages[j]!.role === "toolResult"; j++) {
      const result = messages[j] as Extract<ModelMessage, { role: "toolResult" }>;
      answered.add(result.toolCallId);
      out.push(result);
    }
    for (const call of calls) {
      if (call.type !== "toolCall" || answered.has(call.id)) continue;
      out.push({ role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text: MISSING_RESULT_TEXT }], isError: true });
    }
    i = j - 1;
  }
  return out;
}
