import { acceptToolResultCard } from "../capabilities/resource-card.js";
import type { JsonObject, JsonValue } from "../json.js";
import type { OutputItem, OutputItemMetadata, OutputItemStreamChunk } from "../output-items.js";
import { createOutputItemChunk, outputChunk } from "../output-stream.js";
import type { AgentContextUsage } from "./context-meter.js";
import { agentItemIdPrefix, agentRingItemId, agentSessionItemId } from "./ids.js";
import { retryLabel } from "./retry.js";

/** Options of {@link createAgentOutputProjector}. */
export interface AgentOutputProjectorOptions {
  runId: string;
  sessionKey: string;
  /** Set for host-driven runs: all answer text goes into this one `agent-answer` item (OUT-1). */
  answerItemId: string | null;
  /** The agent's own project id, so a linked-project card naming it is dropped (CAP-9). */
  projectId?: string;
}

/** The state of a tool row. */
export type AgentToolRowStatus = "pending" | "awaiting_approval" | "awaiting_input" | "running" | "completed" | "failed";

/** A retry row's facts (OUT-3). */
export interface AgentRetryRow {
  kind: "dropped" | "recovery" | "length" | "lost-call";
  attempt: number;
  max: number;
  status?: number;
  message: string;
}

const PART = "agent-part";
/**
 * Tool rows with a part type of their own (OUT-1, OUT-9): the plan, edits (`patch`, with the
 * unified diff) and file writes (`file`, with the path). Other tools are `tool` rows.
 */
const PART_TYPE_OF_TOOL: Record<string, "plan" | "patch" | "file"> = { update_plan: "plan", edit: "patch", write: "file" };
const markdown = { type: "markdown" } as const;
const detail = { type: "markdown", collapsed: true } as const;

/**
 * The output-item projection of one agent run (OUT-1 … OUT-5, AG-7). The run feeds it what
 * happens — live, or replayed from the session log — and it returns the chunks to stream. It is
 * deterministic: the same calls produce the same ids and items, so a replayed run rebuilds the
 * live run's items exactly (SES-3).
 *
 * Rules: each text segment between two activity rows is its own `text` part, at the place it was
 * spoken (OUT-2); in a host-driven run text goes into the declared `agent-answer` item instead;
 * response metadata never enters text; every retry is its own row (OUT-3); a plan card exists
 * only after {@link AgentOutputProjector.finalPlan} (OUT-4).
 *
 * @example
 * const projector = createAgentOutputProjector({ runId, sessionKey: "agent", answerItemId: null });
 * chunks.push(...projector.text("Hello", "0:0:0"));
 */
export function createAgentOutputProjector(options: AgentOutputProjectorOptions) {
  let counter = 0;
  let open: { id: string; type: "text" | "reasoning"; block: string } | null = null;
  let textSinceTool: string[] = [];
  const openTexts = new Set<string>();
  /** Open text parts by block: a continuation (OUT-7) appends to the part it continues. */
  const textByBlock = new Map<string, string>();
  const tools = new Map<string, { id: string; content: JsonObject; metadata: OutputItemMetadata }>();
  const ringId = agentRingItemId(options.sessionKey);
  const sessionId = agentSessionItemId(options.sessionKey);
  let ringAdded = false;
  let sessionAdded = false;
  let answerAdded = false;
  let answerHasText = false;
  let answerBlock: string | null = null;
  const idPrefix = agentItemIdPrefix(options.runId);
  const nextId = (): string => `${idPrefix}${counter++}`;

  const closePart = (): OutputItemStreamChunk[] => {
    if (!open) return [];
    const closed = open;
    open = null;
    // Text parts stay open until the next activity row: they may still become the plan (OUT-4).
    return closed.type === "text" ? [] : [outputChunk.done(closed.id)];
  };
  const closeTexts = (): OutputItemStreamChunk[] => {
    const chunks = [...openTexts].map((id) => outputChunk.done(id));
    openTexts.clear();
    textByBlock.clear();
    return chunks;
  };
  const activity = (): OutputItemStreamChunk[] => {
    const chunks = [...closePart(), ...closeTexts()];
    textSinceTool = [];
    return chunks;
  };

  return {
    /** Adds or updates the `agent-session` snapshot item (never body, OUT-1). */
    session(content: JsonObject): OutputItemStreamChunk[] {
      if (sessionAdded) return [outputChunk.replace(sessionId, content)];
      sessionAdded = true;
      return [createOutputItemChunk({ id: sessionId, content, metadata: { kind: "agent-session", version: 1 } })];
    },
    /** Adds or updates the context ring (AG-7). */
    ring(usage: AgentContextUsage): OutputItemStreamChunk[] {
      const content = { value: usage.used, total: usage.total, unit: "tokens" };
      if (ringAdded) return [outputChunk.replace(ringId, content)];
      ringAdded = true;
      return [createOutputItemChunk({ id: ringId, content, display: { type: "ring", placement: "composer-right" }, metadata: {} })];
    },
    /** Appends answer text of block `block` (a new block starts a new text part). */
    text(delta: string, block: string): OutputItemStreamChunk[] {
      if (options.answerItemId !== null) {
        const id = options.answerItemId;
        const chunks: OutputItemStreamChunk[] = closePart();
        if (!answerAdded) {
          answerAdded = true;
          chunks.push(createOutputItemChunk({ id, content: "", display: markdown, metadata: { kind: "agent-answer" } }));
        }
        // A new text segment of the turn is separated from the previous one by a blank line.
        if (answerBlock !== block && answerHasText && delta !== "") chunks.push(outputChunk.delta(id, "\n\n"));
        open = { id, type: "text", block };
        answerBlock = block;
        if (delta !== "") answerHasText = true;
        chunks.push(outputChunk.delta(id, delta));
        return chunks;
      }
      return this.part("text", delta, block);
    },
    /** Appends reasoning text of block `block`. */
    reasoning(delta: string, block: string): OutputItemStreamChunk[] {
      return this.part("reasoning", delta, block);
    },
    /** @internal shared by text and reasoning parts. */
    part(type: "text" | "reasoning", delta: string, block: string): OutputItemStreamChunk[] {
      const chunks: OutputItemStreamChunk[] = [];
      const continued = type === "text" ? textByBlock.get(block) : undefined;
      if (continued !== undefined && open?.id !== continued) {
        chunks.push(...closePart());
        open = { id: continued, type, block };
      } else if (!open || open.type !== type || open.block !== block || open.id === options.answerItemId) {
        chunks.push(...closePart());
        open = { id: nextId(), type, block };
        chunks.push(createOutputItemChunk({ id: open.id, content: "", display: type === "text" ? markdown : detail, metadata: { kind: PART, partType: type } }));
        if (type === "text") {
          openTexts.add(open.id);
          textSinceTool.push(open.id);
          textByBlock.set(block, open.id);
        }
      }
      chunks.push(outputChunk.delta(open.id, delta));
      return chunks;
    },
    /** Ends the current text or reasoning block. */
    endBlock(): OutputItemStreamChunk[] {
      return closePart();
    },
    /** Adds a tool row; text spoken before it stays above it (OUT-2). */
    toolCall(call: { id: string; name: string; arguments: JsonValue }): OutputItemStreamChunk[] {
      const chunks = activity();
      const id = nextId();
      const content: JsonObject = { tool: call.name, toolCallId: call.id, arguments: call.arguments, status: "pending" };
      const metadata: OutputItemMetadata = { kind: PART, partType: PART_TYPE_OF_TOOL[call.name] ?? "tool", tool: call.name };
      tools.set(call.id, { id, content, metadata });
      chunks.push(createOutputItemChunk({ id, content, display: detail, metadata }));
      return chunks;
    },
    /** Updates a tool row's status. */
    toolStatus(toolCallId: string, status: AgentToolRowStatus): OutputItemStreamChunk[] {
      const row = tools.get(toolCallId);
      if (!row || row.content.status === status) return [];
      row.content = { ...row.content, status };
      return [outputChunk.replace(row.id, row.content)];
    },
    /** Completes a tool row with its result; a `resourceCard` in `details` is passed through (CAP-9). */
    toolResult(toolCallId: string, result: { isError: boolean; text: string; details?: JsonValue }): OutputItemStreamChunk[] {
      const row = tools.get(toolCallId);
      if (!row) return [];
      const details = result.details && typeof result.details === "object" && !Array.isArray(result.details) ? result.details : undefined;
      // CAP-9: only successful results carry a card, and only a valid one; an invalid card is
      // dropped with a warning on the row, the result itself stays.
      const accepted = !result.isError && details ? acceptToolResultCard(details, options.projectId === undefined ? {} : { agentProjectId: options.projectId }) : undefined;
      const card = accepted?.details?.resourceCard as JsonValue | undefined;
      const warning = accepted?.warning as JsonValue | undefined;
      const change = !result.isError && details ? fileChange(row.metadata.partType, details) : {};
      row.content = {
        ...row.content,
        status: result.isError ? "failed" : "completed",
        result: result.text,
        ...change,
        ...(card === undefined ? {} : { resourceCard: card }),
        // The structured card command of workflow-ui_present_card (CAP-10), for hosts that show cards.
        ...(!result.isError && details && isCardCommand(details.cardCommand) ? { cardCommand: details.cardCommand } : {}),
        ...(warning === undefined ? {} : { resourceCardWarning: warning }),
      };
      return [outputChunk.replace(row.id, row.content), outputChunk.done(row.id)];
    },
    /**
     * A retry record with its own id (OUT-3). Only `dropped` is a visible folded row between the
     * cut text and what follows; `recovery`, `length` and `lost-call` continue silently: their
     * item (`display: { type: "hidden" }`, `metadata.silent: true`) is kept for traces and exports
     * and does not end the text part, so a continuation joins the text it continues (OUT-7).
     */
    retry(row: AgentRetryRow): OutputItemStreamChunk[] {
      const silent = row.kind !== "dropped";
      const chunks = silent ? closePart() : activity();
      const id = nextId();
      const content: JsonObject = { kind: row.kind, attempt: row.attempt, max: row.max, label: retryLabel(row.attempt, row.max), message: row.message };
      if (row.status !== undefined) content.status = row.status;
      const metadata: OutputItemMetadata = { kind: PART, partType: "retry", ...(silent ? { silent: true } : {}) };
      chunks.push(createOutputItemChunk({ id, content, display: silent ? { type: "hidden" } : detail, metadata }), outputChunk.done(id));
      return chunks;
    },
    /**
     * The final plan event (OUT-4): the text parts spoken after the last tool call become the plan
     * card (`agent-notice`, `plan: true`) in place; a host-driven run adds the card after its answer.
     */
    finalPlan(text: string): OutputItemStreamChunk[] {
      const chunks = closePart();
      const [first, ...rest] = options.answerItemId === null ? textSinceTool : [];
      const metadata: OutputItemMetadata = { kind: "agent-notice", plan: true };
      if (first === undefined) {
        const id = nextId();
        chunks.push(createOutputItemChunk({ id, content: text, display: markdown, metadata }), outputChunk.done(id));
      } else {
        chunks.push(outputChunk.replace(first, text, metadata));
        // The plan card holds the whole plan; further segments of it are emptied, never repeated.
        for (const id of rest) chunks.push(outputChunk.replace(id, "", { kind: PART, partType: "text", mergedIntoPlan: true }));
      }
      chunks.push(...closeTexts());
      textSinceTool = [];
      return chunks;
    },
    /** A compaction row (SES-7): the context was summarised before the next model request. */
    compaction(content: JsonObject): OutputItemStreamChunk[] {
      const chunks = activity();
      const id = nextId();
      chunks.push(createOutputItemChunk({ id, content, display: detail, metadata: { kind: PART, partType: "compaction" } }), outputChunk.done(id));
      return chunks;
    },
    /** An ordinary notice (no `plan` flag), e.g. a plan decision or web sources (OUT-5). */
    notice(text: string, extra: OutputItemMetadata = {}): OutputItemStreamChunk[] {
      const chunks = activity();
      const id = nextId();
      chunks.push(createOutputItemChunk({ id, content: text, display: markdown, metadata: { ...extra, kind: "agent-notice" } }), outputChunk.done(id));
      return chunks;
    },
    /** The `agent-error` item of a failed run (SES-9). */
    error(code: string, message: string, facts?: OutputItemMetadata): OutputItemStreamChunk[] {
      const chunks = activity();
      const id = nextId();
      chunks.push(createOutputItemChunk({ id, content: message, display: markdown, metadata: { ...facts, kind: "agent-error", code } }), outputChunk.done(id));
      return chunks;
    },
    /** Closes every open item (end of a run, or a pause). */
    finish(): OutputItemStreamChunk[] {
      const chunks = [...closePart(), ...closeTexts()];
      if (answerAdded && options.answerItemId !== null) chunks.push(outputChunk.done(options.answerItemId));
      return chunks;
    },
    /** The ring item id (for hosts and tests). */
    ringItemId: ringId,
  };
}

function isCardCommand(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && (value.action === "upsert" || value.action === "remove") && typeof value.cardId === "string";
}

/** What a `patch` row (the diff) or a `file` row (path, size, new or not) adds from the tool's details. */
function fileChange(partType: JsonValue | undefined, details: JsonObject): JsonObject {
  if (partType === "patch" && typeof details.diff === "string") return { path: details.path ?? null, diff: details.diff };
  if (partType === "file" && typeof details.path === "string") return { path: details.path, ...(details.bytes === undefined ? {} : { bytes: details.bytes }), ...(details.created === undefined ? {} : { created: details.created }) };
  return {};
}

/** The projector returned by {@link createAgentOutputProjector}. */
export type AgentOutputProjector = ReturnType<typeof createAgentOutputProjector>;

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
