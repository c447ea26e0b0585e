import type { ModelMessage } from "../../ports/model-provider.js";

/**
 * The text of a final plan (OUT-4): every text block after the last tool call of the turn, in
 * order. Text before tools stays ordinary body and is not part of the plan.
 *
 * @example
 * extractFinalPlan(turnMessages) // "1. Read the config\n2. …"
 */
export function extractFinalPlan(turn: readonly ModelMessage[]): string {
  const texts: string[] = [];
  for (const message of turn) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if (block.type === "toolCall") texts.length = 0;
      else if (block.type === "text" && block.text.trim() !== "") texts.push(block.text);
    }
  }
  return texts.join("\n\n");
}

/**
 * Whether an assistant message ends the turn: no tool calls.
 *
 * @example
 * endsTurn({ role: "assistant", content: [{ type: "text", text: "done" }] }) // true
 */
export function endsTurn(message: ModelMessage): boolean {
  return message.role === "assistant" && !message.content.some((block) => block.type === "toolCall");
}
