import type { OutputItem } from "../output-items.js";

const textOf = (item: OutputItem): string => (typeof item.content === "string" ? item.content : "");

/**
 * The agent's final answer as plain text: what it said after its last tool call. A host-driven
 * run's `agent-answer` item is the answer as a whole; otherwise the text parts (and a final plan
 * card) after the last tool row (tool, patch or file), as paragraphs. Reasoning, tool rows, notices and the session
 * snapshot never enter it; a run that ended on a tool call (or said nothing) gives `""`.
 * {@link conversationBody} is the whole turn's text instead.
 *
 * @example
 * const { output } = await runStreamNode(node, { prompt: "Summarise README.md" }, context);
 * console.log(finalText(output)); // "README.md describes …"
 */
export function finalText(output: { readonly items: readonly OutputItem[] } | readonly OutputItem[]): string {
  const items: readonly OutputItem[] = Array.isArray(output) ? output : (output as { readonly items: readonly OutputItem[] }).items;
  const answer = items.find((item) => item.metadata.kind === "agent-answer");
  if (answer) return textOf(answer);
  let since: string[] = [];
  for (const item of items) {
    const { kind, partType } = item.metadata;
    if (kind === "agent-part" && (partType === "tool" || partType === "patch" || partType === "file")) since = [];
    else if ((kind === "agent-part" && partType === "text") || (kind === "agent-notice" && item.metadata.plan === true)) {
      if (textOf(item) !== "") since.push(textOf(item));
    }
  }
  return since.join("\n\n");
}
