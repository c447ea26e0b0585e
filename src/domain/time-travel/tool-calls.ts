/**
 * The tool calls of a recorded run, read back from its session events (issue 46: FORK-2's hazard
 * report, REPLAY-1's recorded answers). Pure: it folds events, it reads nothing.
 */
import { nestedToolCallId } from "../agent/ids.js";
import type { JsonObject, JsonValue } from "../json.js";
import type { SessionEvent } from "../agent/session-events.js";

/**
 * Whether a call may run again: `safe` (the tool declared `replay: "safe"`), `unsafe` (it did not:
 * its effects must not repeat), `unknown` (the log does not say: a codemode snippet's nested call).
 */
export type ToolReplayClass = "safe" | "unsafe" | "unknown";

/** A tool call as the log recorded it. */
export interface RecordedToolCall {
  runId: string;
  toolCallId: string;
  toolName: string;
  arguments: JsonObject;
  replay: ToolReplayClass;
  /** The seq of the call's first event (its intent), and of its last one. */
  firstSeq: number;
  lastSeq: number;
  /** The decision a person or the catalog gave, when one was recorded. */
  approval: "approved" | "denied" | null;
  /** True when the log says the tool was called (a `tool_started`, or a result with timing). */
  ran: boolean;
  /** What the call returned (`null`: no result recorded; its outcome is unknown). */
  result: { isError: boolean; text: string; details: JsonValue } | null;
}

/** How long a {@link toolCallSummary} gets. */
const SUMMARY_LENGTH = 200;

/**
 * A one-line summary of a call's result for reports: the text, cut to 200 characters.
 *
 * @example
 * toolCallSummary(call) // "ok: charged 42 EUR" | "error: [approval_denied] …" | "no result"
 */
export function toolCallSummary(call: RecordedToolCall): string {
  if (!call.result) return "no result";
  const text = call.result.text.replace(/\s+/g, " ").trim();
  return `${call.result.isError ? "error" : "ok"}: ${text.length > SUMMARY_LENGTH ? `${text.slice(0, SUMMARY_LENGTH - 1)}…` : text}`;
}

/** The tool call id an event of the `tool` family belongs to (`<run>/tool/<id>/<what>`), for events whose payload does not name it. */
function callIdOfEventId(event: SessionEvent): string | undefined {
  const prefix = `${event.runId}/tool/`;
  if (!event.eventId.startsWith(prefix)) return undefined;
  const rest = event.eventId.slice(prefix.length);
  const slash = rest.indexOf("/");
  return slash < 0 ? undefined : rest.slice(0, slash);
}

/**
 * The tool calls in `events` (any runs, any order of reading; seq order is restored), in the
 * order of their intents: the model's own calls (`tool_intent`) and codemode's nested calls.
 * Events of a call whose intent is not among `events` are ignored.
 *
 * @example
 * const calls = recordedToolCalls(await store.readRun(runId));
 * calls.filter((call) => call.replay === "unsafe" && call.ran);
 */
export function recordedToolCalls(events: readonly SessionEvent[]): RecordedToolCall[] {
  const calls = new Map<string, RecordedToolCall>();
  const key = (runId: string, toolCallId: string) => `${runId}\u0000${toolCallId}`;
  const touch = (event: SessionEvent, toolCallId: string | undefined): RecordedToolCall | undefined => {
    const call = toolCallId === undefined ? undefined : calls.get(key(event.runId, toolCallId));
    if (call) call.lastSeq = Math.max(call.lastSeq, event.seq);
    return call;
  };
  for (const event of [...events].sort((a, b) => a.seq - b.seq)) {
    switch (event.type) {
      case "tool_intent": {
        const { toolCallId, toolName, arguments: args, replay } = event.payload;
        const base = { runId: event.runId, toolCallId, toolName, arguments: args, firstSeq: event.seq, lastSeq: event.seq, approval: null, ran: false, result: null };
        calls.set(key(event.runId, toolCallId), { ...base, replay: replay === "safe" ? "safe" : "unsafe" });
        break;
      }
      case "tool_started": {
        const call = touch(event, event.payload.toolCallId);
        if (call) call.ran = true;
        break;
      }
      case "approval_wait":
        touch(event, event.payload.toolCallId);
        break;
      case "approval_decision": {
        const call = touch(event, callIdOfEventId(event));
        if (call && (event.payload.outcome === "approved" || event.payload.outcome === "denied")) call.approval = event.payload.outcome;
        break;
      }
      case "tool_result": {
        const { message, details, timing } = event.payload;
        const call = touch(event, message.toolCallId);
        if (!call) break;
        call.result = { isError: message.isError, text: message.content.map((block) => block.text).join("\n"), details };
        if (timing) call.ran = true;
        break;
      }
      case "extension": {
        if (event.payload.feature !== "codemode") break;
        const data = event.payload.data as { kind?: string; parentToolCallId?: string; index?: number; name?: string; arguments?: JsonObject; isError?: boolean; text?: string; details?: JsonValue };
        if (typeof data.parentToolCallId !== "string" || typeof data.index !== "number") break;
        const toolCallId = nestedToolCallId(data.parentToolCallId, data.index);
        if (data.kind === "intent") {
          const base = { runId: event.runId, toolCallId, toolName: String(data.name), arguments: data.arguments ?? {}, firstSeq: event.seq, lastSeq: event.seq };
          calls.set(key(event.runId, toolCallId), { ...base, replay: "unknown", approval: null, ran: false, result: null });
        } else if (data.kind === "result") {
          const call = touch(event, toolCallId);
          // A nested result is written after the runner returned: the call was made.
          if (call) Object.assign(call, { ran: true, result: { isError: data.isError === true, text: String(data.text ?? ""), details: data.details ?? null } });
        }
        break;
      }
      default:
        break;
    }
  }
  return [...calls.values()].sort((a, b) => a.firstSeq - b.firstSeq);
}
