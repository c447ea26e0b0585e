/**
 * Renders an agent's output stream for a person at a terminal (CONV-2): answer and body text
 * stream as they arrive; tool calls become one row when they finish (`⏺ write note.txt ✓`);
 * retries and compactions become one-line notes; a plan is framed as a card; errors are marked;
 * the context ring is remembered and shown after each turn. Session snapshots are never shown.
 */
import type { JsonValue } from "../../../domain/json.js";
import type { OutputItemMetadata, OutputItemStreamChunk } from "../../../domain/output-items.js";

/** Where the renderer writes (stdout in the CLI). */
export interface ChatWriter {
  write(text: string): void;
}

interface Tracked {
  metadata: OutputItemMetadata;
  ring: boolean;
  content: JsonValue;
}

/** A stateful renderer for one conversation. */
export interface ChatRenderer {
  /** Renders one chunk. */
  push(chunk: OutputItemStreamChunk): void;
  /** Ends a turn: closes an open text line and prints the context ring. */
  endTurn(): void;
  /** The latest ring value, if any. */
  ring(): { used: number; total: number } | undefined;
}

const TEXT_KINDS = new Set(["agent-answer"]);

/**
 * A renderer writing to `out`.
 *
 * @example
 * const renderer = createChatRenderer(process.stdout);
 * for await (const chunk of agent.run(input, context)) renderer.push(chunk);
 * renderer.endTurn();
 */
export function createChatRenderer(out: ChatWriter): ChatRenderer {
  const items = new Map<string, Tracked>();
  let atLineStart = true;
  let lastRing: { used: number; total: number } | undefined;
  const write = (text: string) => {
    if (text === "") return;
    out.write(text);
    atLineStart = text.endsWith("\n");
  };
  const line = (text: string) => {
    if (!atLineStart) write("\n");
    write(`${text}\n`);
  };
  const streamsText = (t: Tracked) => TEXT_KINDS.has(t.metadata.kind ?? "") || (t.metadata.kind === "agent-part" && t.metadata.partType === "text");
  const finish = (id: string, t: Tracked) => {
    const { kind, partType } = t.metadata;
    if (t.ring) return;
    if (kind === "agent-part" && (partType === "tool" || partType === "plan" || partType === "file")) return line(toolRow(t.content, partType));
    if (kind === "agent-part" && partType === "patch") {
      const diff = field(t.content, "diff");
      return line(`${toolRow(t.content, partType)}${diff ? `\n${indent(diff.trimEnd())}` : ""}`);
    }
    if (kind === "agent-part" && partType === "retry" && t.metadata.silent === true) return;
    if (kind === "agent-part" && partType === "retry") return line(`↻ ${field(t.content, "label") ?? "retry"}${field(t.content, "message") ? ` — ${field(t.content, "message")}` : ""}`);
    if (kind === "agent-part" && partType === "compaction") return line(compactionRow(t.content));
    if (kind === "agent-notice" && t.metadata.plan === true) return line(`┌─ plan ─────────────\n${indent(String(t.content ?? ""))}\n└────────────────────`);
    if (kind === "agent-notice") return line(`ℹ ${String(t.content ?? "")}`);
    if (kind === "agent-error") return line(`✗ error: ${String(t.content ?? "")}`);
    if (streamsText(t) && !atLineStart) write("\n");
    void id;
  };
  return {
    push(chunk) {
      if (chunk.type === "add") {
        const ring = chunk.item.display?.type === "ring";
        const tracked: Tracked = { metadata: chunk.item.metadata ?? {}, ring, content: chunk.item.content ?? "" };
        items.set(chunk.item.id, tracked);
        if (ring) lastRing = ringOf(tracked.content) ?? lastRing;
        else if (streamsText(tracked) && typeof tracked.content === "string") write(tracked.content);
        return;
      }
      const tracked = items.get(chunk.id) ?? { metadata: {}, ring: false, content: "" };
      items.set(chunk.id, tracked);
      if (chunk.type === "delta") {
        tracked.content = `${typeof tracked.content === "string" ? tracked.content : ""}${chunk.delta}`;
        if (streamsText(tracked)) write(chunk.delta);
      } else if (chunk.type === "replace") {
        tracked.content = chunk.content;
        if (chunk.metadata) tracked.metadata = chunk.metadata;
        if (tracked.ring) lastRing = ringOf(chunk.content) ?? lastRing;
      } else if (chunk.type === "done") {
        finish(chunk.id, tracked);
      }
    },
    endTurn() {
      if (!atLineStart) write("\n");
      if (lastRing) write(`◔ context ${lastRing.used.toLocaleString("en-US")} / ${lastRing.total.toLocaleString("en-US")} tokens\n`);
    },
    ring: () => lastRing,
  };
}

/** SES-11: who wrote the summary, and the ring before and after; a fallback says why. */
function compactionRow(content: JsonValue): string {
  if (typeof content === "string") return `⋯ context compacted${content ? `: ${content}` : ""}`;
  const before = field(content, "usedBefore");
  const after = field(content, "usedAfter");
  const sizes = before !== undefined && after !== undefined ? ` (${before} → ${after} tokens)` : "";
  if (field(content, "source") === "fallback") return `⋯ context compacted mechanically${sizes} — the model could not summarise: ${field(content, "reason") ?? "unknown error"}`;
  return `⋯ context compacted: summary written by the model${sizes}`;
}

function toolRow(content: JsonValue, partType: string): string {
  const tool = field(content, "tool") ?? partType;
  const status = field(content, "status");
  const mark = status === "completed" ? "✓" : status === "failed" ? "✗" : status === "denied" ? "⊘ denied" : (status ?? "");
  const args = content && typeof content === "object" && !Array.isArray(content) ? content.arguments : undefined;
  const shown = args && typeof args === "object" && !Array.isArray(args) ? ` ${argumentSummary(args)}`.trimEnd() : "";
  return `⏺ ${tool}${shown} ${mark}`.trimEnd();
}

/** The arguments a person recognises a call by: the action, then the first target-like field. */
const TARGET_KEYS = ["path", "key", "documentId", "memoryId", "cardId", "configurationId", "pattern", "query", "command", "question", "url"];

function argumentSummary(args: { [key: string]: JsonValue }): string {
  const action = typeof args.action === "string" ? args.action : undefined;
  const key = TARGET_KEYS.find((k) => typeof args[k] === "string");
  const target = key ? (args[key] as string) : undefined;
  const text = [action, target].filter((part) => part !== undefined).join(" ");
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function field(content: JsonValue, key: string): string | undefined {
  if (!content || typeof content !== "object" || Array.isArray(content)) return undefined;
  const value = content[key];
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;
}

function ringOf(content: JsonValue): { used: number; total: number } | undefined {
  if (!content || typeof content !== "object" || Array.isArray(content)) return undefined;
  const used = content.value;
  const total = content.total;
  return typeof used === "number" && typeof total === "number" ? { used, total } : undefined;
}

function indent(text: string): string {
  return text.split("\n").map((l) => `│ ${l}`).join("\n");
}
