import type { JsonObject, JsonValue } from "../json.js";
import type { OutputItem, OutputItemMetadata, OutputItemStreamChunk } from "../output-items.js";
import type { AgentContextUsage } from "./context-meter.js";
import { agentRingItemId } from "./ids.js";
import { createAgentOutputState, projectAgentOutput, type AgentOutputEvent, type AgentOutputProjectorOptions, type AgentRetryRow, type AgentToolRowStatus } from "./output-handlers.js";

export { createAgentOutputState, projectAgentOutput } from "./output-handlers.js";
export type { AgentOutputEvent, AgentOutputProjectorOptions, AgentOutputState, AgentRetryRow, AgentToolRowStatus } from "./output-handlers.js";

/** The projector returned by {@link createAgentOutputProjector}: one method per event. */
export interface AgentOutputProjector {
  /** Adds or updates the `agent-session` snapshot item (never body, OUT-1). */
  session(content: JsonObject): OutputItemStreamChunk[];
  /** Adds or updates the context ring (AG-7). */
  ring(usage: AgentContextUsage): OutputItemStreamChunk[];
  /** Appends answer text of block `block` (a new block starts a new text part). */
  text(delta: string, block: string): OutputItemStreamChunk[];
  /** Appends reasoning text of block `block`. */
  reasoning(delta: string, block: string): OutputItemStreamChunk[];
  /** Ends the current text or reasoning block. */
  endBlock(): OutputItemStreamChunk[];
  /** Adds a tool row; text spoken before it stays above it (OUT-2). */
  toolCall(call: { id: string; name: string; arguments: JsonValue }): OutputItemStreamChunk[];
  /** Updates a tool row's status. */
  toolStatus(toolCallId: string, status: AgentToolRowStatus): OutputItemStreamChunk[];
  /** Completes a tool row with its result; a `resourceCard` in `details` is passed through (CAP-9). */
  toolResult(toolCallId: string, result: { isError: boolean; text: string; details?: JsonValue }): OutputItemStreamChunk[];
  /** A retry record with its own id (OUT-3); only `dropped` is a visible row. */
  retry(row: AgentRetryRow): OutputItemStreamChunk[];
  /** The final plan event (OUT-4): the plan card. */
  finalPlan(text: string): OutputItemStreamChunk[];
  /** A compaction row (SES-7). */
  compaction(content: JsonObject): OutputItemStreamChunk[];
  /** An ordinary notice (no `plan` flag), e.g. a plan decision or web sources (OUT-5). */
  notice(text: string, extra?: OutputItemMetadata): OutputItemStreamChunk[];
  /** The `agent-error` item of a failed run (SES-9). */
  error(code: string, message: string, facts?: OutputItemMetadata): OutputItemStreamChunk[];
  /** Closes every open item (end of a run, or a pause). */
  finish(): OutputItemStreamChunk[];
  /** The ring item id (for hosts and tests). */
  readonly ringItemId: string;
}

/**
 * The output-item projection of one agent run (OUT-1 … OUT-5, AG-7) as methods: each is
 * {@link projectAgentOutput} with one event over the run's {@link AgentOutputState}. The run feeds
 * it what happens — live, or replayed from the session log — and it returns the chunks to stream.
 *
 * @example
 * const projector = createAgentOutputProjector({ runId, sessionKey: "agent", answerItemId: null });
 * chunks.push(...projector.text("Hello", "0:0:0"));
 */
export function createAgentOutputProjector(options: AgentOutputProjectorOptions): AgentOutputProjector {
  const state = createAgentOutputState(options);
  const on = (event: AgentOutputEvent): OutputItemStreamChunk[] => projectAgentOutput(state, event);
  return {
    session: (content) => on({ type: "session", content }),
    ring: (usage) => on({ type: "ring", usage }),
    text: (delta, block) => on({ type: "text", delta, block }),
    reasoning: (delta, block) => on({ type: "reasoning", delta, block }),
    endBlock: () => on({ type: "endBlock" }),
    toolCall: (call) => on({ type: "toolCall", call }),
    toolStatus: (toolCallId, status) => on({ type: "toolStatus", toolCallId, status }),
    toolResult: (toolCallId, result) => on({ type: "toolResult", toolCallId, result }),
    retry: (row) => on({ type: "retry", row }),
    finalPlan: (text) => on({ type: "finalPlan", text }),
    compaction: (content) => on({ type: "compaction", content }),
    notice: (text, extra = {}) => on({ type: "notice", text, extra }),
    error: (code, message, facts) => on({ type: "error", code, message, ...(facts === undefined ? {} : { facts }) }),
    finish: () => on({ type: "finish" }),
    ringItemId: agentRingItemId(options.sessionKey),
  };
}

/**
 * The conversation message body of a run's items (OUT-2): the `agent-answer` text of a
 * host-driven run, else the text rows and the final plan in output order, as paragraphs. Reasoning,
 * tool rows, retries, notices and the session snapshot never enter it.
 *
 * @example
 * conversationBody(output.items) // "I'll read the file first.\n\nDone."
 */
export function conversationBody(items: readonly OutputItem[]): string {
  const answer = items.find((item) => item.metadata.kind === "agent-answer");
  if (answer) return typeof answer.content === "string" ? answer.content : "";
  return items
    .filter((item) => (item.metadata.kind === "agent-part" && item.metadata.partType === "text") || (item.metadata.kind === "agent-notice" && item.metadata.plan === true))
    .map((item) => (typeof item.content === "string" ? item.content : ""))
    .filter((text) => text !== "")
    .join("\n\n");
}
