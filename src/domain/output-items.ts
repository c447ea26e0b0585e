import type { JsonValue } from "./json.js";

/** The kinds of agent output item (OUT-1). */
export type AgentOutputKind = "agent-session" | "agent-answer" | "agent-part" | "agent-notice" | "agent-error";

/** The part types of an `agent-part` item (OUT-1). */
export type AgentPartType = "reasoning" | "text" | "tool" | "retry" | "compaction" | "plan" | "patch" | "file";

/** How a host shows an item. Only the ring (AG-7) has a fixed shape; others are free-form. */
export type OutputItemDisplay =
  | { type: "ring"; placement: "composer-right" }
  | { type: "markdown"; collapsed?: boolean }
  | { type: string; [key: string]: JsonValue | undefined };

/** Content of the context ring (AG-7). */
export interface RingContent {
  value: number;
  total: number;
  unit: "tokens";
}

/** Metadata of an item. `kind` is required for agent items; other nodes may omit it. */
export interface OutputItemMetadata {
  kind?: AgentOutputKind;
  partType?: AgentPartType;
  /** Plans carry `plan: true` on their notice (OUT-4). */
  plan?: boolean;
  [key: string]: JsonValue | undefined;
}

/**
 * One output item: an id stable for its lifetime, a display hint, content (text for markdown
 * items, structured for others) and metadata. `done` is true once no more chunks will change it.
 */
export interface OutputItem {
  id: string;
  display?: OutputItemDisplay;
  content: JsonValue;
  metadata: OutputItemMetadata;
  done: boolean;
}

/**
 * A chunk of an output stream:
 * - `add` creates an item (or, for an id already known, replaces its display/metadata and
 *   appends nothing); the position of an item is where it was first added.
 * - `delta` appends text to a string content (an item added without content starts as "").
 * - `replace` replaces content (and metadata when given).
 * - `done` marks the item finished; chunks for a finished item are ignored.
 * Chunks for an id never added create it at that point (with empty metadata).
 */
export type OutputItemStreamChunk =
  | { type: "add"; item: Omit<OutputItem, "done" | "content"> & { content?: JsonValue } }
  | { type: "delta"; id: string; delta: string }
  | { type: "replace"; id: string; content: JsonValue; metadata?: OutputItemMetadata }
  | { type: "done"; id: string };
