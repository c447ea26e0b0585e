/**
 * One walk over a session's logged events for every surface that shows a conversation (the
 * viewer's transcript, UI-7; the chat route's UI message stream, UI-1): what each event means to
 * a person, with the cross-references resolved once — which tool call a request or result is
 * about, which kind a request is, whether a stopped run was started again. Each surface then only
 * says how it shows a step.
 */
import type { JsonObject, JsonValue } from "../json.js";
import type { SessionEvent } from "./session-events.js";

type EventOf<K extends SessionEvent["type"]> = Extract<SessionEvent, { type: K }>;
type AssistantBlock = EventOf<"assistant_message">["payload"]["message"]["content"][number];

/** A tool call the model made. */
export interface WalkedToolCall {
  id: string;
  name: string;
  arguments: JsonObject;
}

/** What one event is to a person (`null` for bookkeeping events: tool intents and starts, extension records). */
export type SessionStep =
  | { type: "run"; model: string; at: number }
  | { type: "user"; text: string; byRuntime: boolean }
  /** `blocks`: what the person was shown of this answer (a continuation's text before it was shown by its retries); `text`, `reasoning` and `calls` are of the whole message. */
  | { type: "assistant"; blocks: readonly AssistantBlock[]; text: string; reasoning: string; calls: WalkedToolCall[] }
  | { type: "retry"; partialText: Array<{ index: number; text: string }>; attempt: number; max: number; kind: string }
  | { type: "tool-result"; toolCallId: string; text: string; isError: boolean; details: JsonValue; at: number }
  | { type: "wait"; requestId: string; kind: RequestKind; toolCallId?: string; call?: WalkedToolCall }
  /** `waited`: the request had an `approval_wait` before (a pause); `askedAt`: when it was asked. */
  | { type: "decision"; requestId: string; kind: RequestKind; toolCallId?: string; call?: WalkedToolCall; waited: boolean; askedAt: number; outcome: EventOf<"approval_decision">["payload"]["outcome"]; payload: EventOf<"approval_decision">["payload"] }
  | { type: "plan"; planIndex: number; text: string }
  | { type: "usage"; entry: EventOf<"usage">["payload"]["entry"] }
  | { type: "compaction"; payload: EventOf<"compaction">["payload"] }
  | { type: "end"; status: "completed" | "waiting" | "cancelled" | "failed"; code?: string };

/** The kind of a request for a person. */
export type RequestKind = "tool_approval" | "question" | "plan";

/**
 * The text of a message's content: its text blocks joined (reasoning and tool calls left out).
 *
 * @example
 * contentText([{ type: "text", text: "a" }, { type: "reasoning", text: "b" }]); // "a"
 */
export function contentText(content: string | ReadonlyArray<{ type: string; text?: string }>): string {
  return typeof content === "string" ? content : content.flatMap((block) => (block.type === "text" && block.text !== undefined ? [block.text] : [])).join("");
}

const kindOf = (requestId: string): RequestKind => (requestId.startsWith("approval:") ? "tool_approval" : requestId.startsWith("plan:") ? "plan" : "question");

/**
 * A walk over one session's events in `seq` order: `step(event)` says what the event is, and
 * whether it starts a run again that had stopped (`resumed`).
 *
 * @example
 * const walk = createSessionWalk();
 * for (const event of events) {
 *   const { step } = walk.step(event);
 *   if (step?.type === "tool-result") console.log(step.toolCallId, step.text);
 * }
 */
export function createSessionWalk() {
  const calls = new Map<string, WalkedToolCall>();
  const waits = new Map<string, { kind: RequestKind; toolCallId?: string; askedAt: number }>();
  const started = new Set<string>();
  const stopped = new Set<string>();

  const stepOf = (event: SessionEvent): SessionStep | null => {
    switch (event.type) {
      case "run_started":
        if (started.has(event.runId)) return null;
        started.add(event.runId);
        return { type: "run", model: event.payload.model, at: event.payload.startedAt ?? event.at };
      case "user_message":
        return { type: "user", text: contentText(event.payload.message.content), byRuntime: /\/plan\/\d+\/continue$/.test(event.eventId) };
      case "assistant_message": {
        const { content } = event.payload.message;
        const fresh: WalkedToolCall[] = [];
        for (const block of content) {
          if (block.type !== "toolCall" || calls.has(block.id)) continue;
          const call = { id: block.id, name: block.name, arguments: block.arguments };
          calls.set(block.id, call);
          fresh.push(call);
        }
        const reasoning = content.flatMap((block) => (block.type === "reasoning" ? [block.text] : [])).join("");
        return { type: "assistant", blocks: event.payload.shown ?? content, text: contentText(content), reasoning, calls: fresh };
      }
      case "model_retry": {
        const { partial, attempt, max, kind } = event.payload;
        return { type: "retry", partialText: partial.flatMap((block, index) => (block.type === "text" ? [{ index, text: block.text }] : [])), attempt, max, kind };
      }
      case "tool_result": {
        const { message, details } = event.payload;
        return { type: "tool-result", toolCallId: message.toolCallId, text: contentText(message.content), isError: message.isError, details, at: event.at };
      }
      case "approval_wait": {
        const { requestId, kind, toolCallId } = event.payload;
        if (waits.has(requestId)) return null;
        waits.set(requestId, { kind, ...(toolCallId === undefined ? {} : { toolCallId }), askedAt: event.at });
        const call = toolCallId === undefined ? undefined : calls.get(toolCallId);
        return { type: "wait", requestId, kind, ...(toolCallId === undefined ? {} : { toolCallId }), ...(call ? { call } : {}) };
      }
      case "approval_decision": {
        const { requestId, outcome, timing } = event.payload;
        const wait = waits.get(requestId);
        // Decided while the run waited in its process (no pause): the event's id names the call, its timing the ask.
        const toolCallId = wait ? wait.toolCallId : /\/tool\/(.+)\/decision$/.exec(event.eventId)?.[1];
        const call = toolCallId === undefined ? undefined : calls.get(toolCallId);
        return { type: "decision", requestId, kind: wait?.kind ?? kindOf(requestId), ...(toolCallId === undefined ? {} : { toolCallId }), ...(call ? { call } : {}), waited: wait !== undefined, askedAt: wait?.askedAt ?? timing?.startedAt ?? event.at, outcome, payload: event.payload };
      }
      case "plan":
        return { type: "plan", planIndex: event.payload.planIndex, text: event.payload.text };
      case "usage":
        return { type: "usage", entry: event.payload.entry };
      case "compaction":
        return { type: "compaction", payload: event.payload };
      case "run_finished":
        return { type: "end", status: "completed" };
      case "run_stopped":
        return { type: "end", status: event.payload.status, ...(event.payload.code === undefined ? {} : { code: event.payload.code }) };
      default:
        return null;
    }
  };

  return {
    /** What `event` is; `resumed` when it is the first event of a stopped run started again. */
    step(event: SessionEvent): { step: SessionStep | null; resumed: boolean } {
      const ends = event.type === "run_finished" || event.type === "run_stopped";
      const resumed = !ends && stopped.delete(event.runId);
      if (ends) stopped.add(event.runId);
      return { step: stepOf(event), resumed };
    },
  };
}
