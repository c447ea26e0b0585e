import { acceptToolResultCard } from "../capabilities/resource-card.js";
import type { JsonObject, JsonValue } from "../json.js";
import type { OutputItemMetadata, OutputItemStreamChunk } from "../output-items.js";
import { createOutputItemChunk, outputChunk } from "../output-stream.js";
import type { AgentContextUsage } from "./context-meter.js";
import { agentItemIdPrefix, agentRingItemId, agentSessionItemId } from "./ids.js";
import { retryLabel } from "./retry.js";

/*
 * The agent's output projection as per-event handlers over a small state (OUT-1 … OUT-5, AG-7):
 * `projectAgentOutput(state, event)` looks the event's handler up and returns the chunks to
 * stream. `createAgentOutputProjector` (output-projector.ts) is the same with one method per event.
 */

/** Options of `createAgentOutputProjector`. */
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

/** What the projector is told, one call per event of the run (live, or replayed from the log). */
export type AgentOutputEvent =
  | { type: "session"; content: JsonObject }
  | { type: "ring"; usage: AgentContextUsage }
  | { type: "text"; delta: string; block: string }
  | { type: "reasoning"; delta: string; block: string }
  | { type: "endBlock" }
  | { type: "toolCall"; call: { id: string; name: string; arguments: JsonValue } }
  | { type: "toolStatus"; toolCallId: string; status: AgentToolRowStatus }
  | { type: "toolResult"; toolCallId: string; result: { isError: boolean; text: string; details?: JsonValue } }
  | { type: "retry"; row: AgentRetryRow }
  | { type: "finalPlan"; text: string }
  | { type: "compaction"; content: JsonObject }
  | { type: "notice"; text: string; extra?: OutputItemMetadata }
  | { type: "error"; code: string; message: string; facts?: OutputItemMetadata }
  | { type: "finish" };

/** The projection's state: which items exist and which parts are open. */
export interface AgentOutputState {
  readonly options: AgentOutputProjectorOptions;
  /** Ids of the run's items: `<prefix><counter>`. */
  counter: number;
  /** The text or reasoning part streaming now. */
  open: { id: string; type: "text" | "reasoning"; block: string } | null;
  /** Text parts since the last activity row: they may still become the plan card (OUT-4). */
  textSinceTool: string[];
  openTexts: Set<string>;
  /** Open text parts by block: a continuation (OUT-7) appends to the part it continues. */
  textByBlock: Map<string, string>;
  tools: Map<string, { id: string; content: JsonObject; metadata: OutputItemMetadata }>;
  ringAdded: boolean;
  sessionAdded: boolean;
  answerAdded: boolean;
  answerHasText: boolean;
  answerBlock: string | null;
}

/**
 * A fresh projection state for one run.
 *
 * @example
 * const state = createAgentOutputState({ runId: "r1", sessionKey: "agent", answerItemId: null });
 */
export function createAgentOutputState(options: AgentOutputProjectorOptions): AgentOutputState {
  return { options, counter: 0, open: null, textSinceTool: [], openTexts: new Set(), textByBlock: new Map(), tools: new Map(), ringAdded: false, sessionAdded: false, answerAdded: false, answerHasText: false, answerBlock: null };
}

type Chunks = OutputItemStreamChunk[];
type Handler<T extends AgentOutputEvent["type"]> = (state: AgentOutputState, event: Extract<AgentOutputEvent, { type: T }>) => Chunks;

const nextId = (state: AgentOutputState): string => `${agentItemIdPrefix(state.options.runId)}${state.counter++}`;

function closePart(state: AgentOutputState): Chunks {
  const closed = state.open;
  if (!closed) return [];
  state.open = null;
  // Text parts stay open until the next activity row: they may still become the plan (OUT-4).
  return closed.type === "text" ? [] : [outputChunk.done(closed.id)];
}

function closeTexts(state: AgentOutputState): Chunks {
  const chunks = [...state.openTexts].map((id) => outputChunk.done(id));
  state.openTexts.clear();
  state.textByBlock.clear();
  return chunks;
}

/** An activity row (tool, notice, visible retry, error) ends the open parts before it. */
function activity(state: AgentOutputState): Chunks {
  const chunks = [...closePart(state), ...closeTexts(state)];
  state.textSinceTool = [];
  return chunks;
}

/** A closed row after the open parts: a notice, an error, a compaction. */
function row(state: AgentOutputState, content: JsonValue, display: { type: string; collapsed?: boolean }, metadata: OutputItemMetadata): Chunks {
  const chunks = activity(state);
  const id = nextId(state);
  chunks.push(createOutputItemChunk({ id, content, display, metadata }), outputChunk.done(id));
  return chunks;
}

/** Shared by text and reasoning parts: appends to the open part of `block`, or opens one. */
function part(state: AgentOutputState, type: "text" | "reasoning", delta: string, block: string): Chunks {
  const chunks: Chunks = [];
  const continued = type === "text" ? state.textByBlock.get(block) : undefined;
  const { open } = state;
  if (continued !== undefined && open?.id !== continued) {
    chunks.push(...closePart(state));
    state.open = { id: continued, type, block };
  } else if (!open || open.type !== type || open.block !== block || open.id === state.options.answerItemId) {
    chunks.push(...closePart(state));
    const id = nextId(state);
    state.open = { id, type, block };
    chunks.push(createOutputItemChunk({ id, content: "", display: type === "text" ? markdown : detail, metadata: { kind: PART, partType: type } }));
    if (type === "text") {
      state.openTexts.add(id);
      state.textSinceTool.push(id);
      state.textByBlock.set(block, id);
    }
  }
  chunks.push(outputChunk.delta(state.open!.id, delta));
  return chunks;
}

/** In a host-driven run all text goes into the declared `agent-answer` item (OUT-1). */
function answerText(state: AgentOutputState, id: string, delta: string, block: string): Chunks {
  const chunks = closePart(state);
  if (!state.answerAdded) {
    state.answerAdded = true;
    chunks.push(createOutputItemChunk({ id, content: "", display: markdown, metadata: { kind: "agent-answer" } }));
  }
  // A new text segment of the turn is separated from the previous one by a blank line.
  if (state.answerBlock !== block && state.answerHasText && delta !== "") chunks.push(outputChunk.delta(id, "\n\n"));
  state.open = { id, type: "text", block };
  state.answerBlock = block;
  if (delta !== "") state.answerHasText = true;
  chunks.push(outputChunk.delta(id, delta));
  return chunks;
}

function toolResult(state: AgentOutputState, { toolCallId, result }: Extract<AgentOutputEvent, { type: "toolResult" }>): Chunks {
  const tool = state.tools.get(toolCallId);
  if (!tool) return [];
  const details = result.details && typeof result.details === "object" && !Array.isArray(result.details) ? result.details : undefined;
  // CAP-9: only successful results carry a card, and only a valid one; an invalid card is
  // dropped with a warning on the row, the result itself stays.
  const { projectId } = state.options;
  const accepted = !result.isError && details ? acceptToolResultCard(details, projectId === undefined ? {} : { agentProjectId: projectId }) : undefined;
  const card = accepted?.details?.resourceCard as JsonValue | undefined;
  const warning = accepted?.warning as JsonValue | undefined;
  const change = !result.isError && details ? fileChange(tool.metadata.partType, details) : {};
  tool.content = {
    ...tool.content,
    status: result.isError ? "failed" : "completed",
    result: result.text,
    ...change,
    ...(card === undefined ? {} : { resourceCard: card }),
    // The structured card command of workflow-ui_present_card (CAP-10), for hosts that show cards.
    ...(!result.isError && details && isCardCommand(details.cardCommand) ? { cardCommand: details.cardCommand } : {}),
    ...(warning === undefined ? {} : { resourceCardWarning: warning }),
  };
  return [outputChunk.replace(tool.id, tool.content), outputChunk.done(tool.id)];
}

/**
 * The final plan event (OUT-4): the text parts spoken after the last tool call become the plan
 * card (`agent-notice`, `plan: true`) in place; a host-driven run adds the card after its answer.
 */
function finalPlan(state: AgentOutputState, { text }: { text: string }): Chunks {
  const chunks = closePart(state);
  const [first, ...rest] = state.options.answerItemId === null ? state.textSinceTool : [];
  const metadata: OutputItemMetadata = { kind: "agent-notice", plan: true };
  if (first === undefined) {
    const id = nextId(state);
    chunks.push(createOutputItemChunk({ id, content: text, display: markdown, metadata }), outputChunk.done(id));
  } else {
    chunks.push(outputChunk.replace(first, text, metadata));
    // The plan card holds the whole plan; further segments of it are emptied, never repeated.
    for (const id of rest) chunks.push(outputChunk.replace(id, "", { kind: PART, partType: "text", mergedIntoPlan: true }));
  }
  chunks.push(...closeTexts(state));
  state.textSinceTool = [];
  return chunks;
}

/**
 * One handler per event. Rules: each text segment between two activity rows is its own `text`
 * part, at the place it was spoken (OUT-2); in a host-driven run text goes into the declared
 * `agent-answer` item instead; response metadata never enters text; every retry is its own row
 * (OUT-3); a plan card exists only after `finalPlan` (OUT-4).
 */
const handlers: { [T in AgentOutputEvent["type"]]: Handler<T> } = {
  // The `agent-session` snapshot item (never body, OUT-1).
  session(state, { content }) {
    const id = agentSessionItemId(state.options.sessionKey);
    if (state.sessionAdded) return [outputChunk.replace(id, content)];
    state.sessionAdded = true;
    return [createOutputItemChunk({ id, content, metadata: { kind: "agent-session", version: 1 } })];
  },
  // The context ring (AG-7).
  ring(state, { usage }) {
    const id = agentRingItemId(state.options.sessionKey);
    const content = { value: usage.used, total: usage.total, unit: "tokens" };
    if (state.ringAdded) return [outputChunk.replace(id, content)];
    state.ringAdded = true;
    return [createOutputItemChunk({ id, content, display: { type: "ring", placement: "composer-right" }, metadata: {} })];
  },
  text: (state, { delta, block }) => (state.options.answerItemId !== null ? answerText(state, state.options.answerItemId, delta, block) : part(state, "text", delta, block)),
  reasoning: (state, { delta, block }) => part(state, "reasoning", delta, block),
  endBlock: (state) => closePart(state),
  // A tool row; text spoken before it stays above it (OUT-2).
  toolCall(state, { call }) {
    const chunks = activity(state);
    const id = nextId(state);
    const content: JsonObject = { tool: call.name, toolCallId: call.id, arguments: call.arguments, status: "pending" };
    const metadata: OutputItemMetadata = { kind: PART, partType: PART_TYPE_OF_TOOL[call.name] ?? "tool", tool: call.name };
    state.tools.set(call.id, { id, content, metadata });
    chunks.push(createOutputItemChunk({ id, content, display: detail, metadata }));
    return chunks;
  },
  toolStatus(state, { toolCallId, status }) {
    const tool = state.tools.get(toolCallId);
    if (!tool || tool.content.status === status) return [];
    tool.content = { ...tool.content, status };
    return [outputChunk.replace(tool.id, tool.content)];
  },
  toolResult,
  // Only `dropped` is a visible folded row between the cut text and what follows; `recovery`,
  // `length` and `lost-call` continue silently: their item is hidden (`metadata.silent`) and does
  // not end the text part, so a continuation joins the text it continues (OUT-3, OUT-7).
  retry(state, { row: retry }) {
    const silent = retry.kind !== "dropped";
    const chunks = silent ? closePart(state) : activity(state);
    const id = nextId(state);
    const content: JsonObject = { kind: retry.kind, attempt: retry.attempt, max: retry.max, label: retryLabel(retry.attempt, retry.max), message: retry.message };
    if (retry.status !== undefined) content.status = retry.status;
    const metadata: OutputItemMetadata = { kind: PART, partType: "retry", ...(silent ? { silent: true } : {}) };
    chunks.push(createOutputItemChunk({ id, content, display: silent ? { type: "hidden" } : detail, metadata }), outputChunk.done(id));
    return chunks;
  },
  finalPlan,
  // SES-7: the context was summarised before the next model request.
  compaction: (state, { content }) => row(state, content, detail, { kind: PART, partType: "compaction" }),
  // An ordinary notice (no `plan` flag), e.g. a plan decision or web sources (OUT-5).
  notice: (state, { text, extra = {} }) => row(state, text, markdown, { ...extra, kind: "agent-notice" }),
  // The `agent-error` item of a failed run (SES-9).
  error: (state, { code, message, facts }) => row(state, message, markdown, { ...facts, kind: "agent-error", code }),
  // Closes every open item (end of a run, or a pause).
  finish(state) {
    const chunks = [...closePart(state), ...closeTexts(state)];
    if (state.answerAdded && state.options.answerItemId !== null) chunks.push(outputChunk.done(state.options.answerItemId));
    return chunks;
  },
};

/**
 * Applies one event to the projection and returns the chunks to stream. Deterministic: the same
 * events produce the same ids and items, so a replayed run rebuilds the live run's items exactly
 * (SES-3).
 *
 * @example
 * const state = createAgentOutputState({ runId: "r1", sessionKey: "agent", answerItemId: null });
 * projectAgentOutput(state, { type: "text", delta: "Hello", block: "0:0:0" }); // add + delta of part r1…:0
 */
export function projectAgentOutput(state: AgentOutputState, event: AgentOutputEvent): OutputItemStreamChunk[] {
  return (handlers[event.type] as Handler<typeof event.type>)(state, event);
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

