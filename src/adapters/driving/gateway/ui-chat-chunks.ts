/**
 * The AI SDK UI message stream of a chat turn (UI-1, UI-2) as a pure fold over the turn's logged
 * session events: the same events give the same chunks, with the same part ids (`<seq>.<index>`)
 * and the same `messageId`, however often and by whichever host they are read. That is what lets
 * a resumed stream be a replay (`resumeStreamIsReplay`: the client rebuilds the message from
 * `start`) and a cursor (`after`) name a position in it: the log's `seq`.
 */
import type { SessionEvent } from "../../../domain/agent/session-events.js";
import type { JsonValue } from "../../../domain/json.js";
import { chatMessageIdOf, type ChatStreamEntry } from "../../../app/chats/chat-turns.js";

/** A chunk of the AI SDK's UI message stream protocol (the subset the chat route sends). */
export type UiMessageChunk = { type: string; [field: string]: JsonValue | undefined };

/** Token usage as the message metadata carries it (the AI SDK's `LanguageModelUsage` names). */
export interface UiChatUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedInputTokens: number;
}

/** The assistant message id of a turn's run: fixed, so every read of the turn starts the same message. */
export const uiMessageIdOf = (runId: string): string => `msg-${runId}`;

const textOf = (content: ReadonlyArray<{ type: string; text?: string }>): string => content.map((block) => block.text ?? "").join("");

/**
 * A fold of one turn's stream entries into UI message chunks. `start()` opens the message; each
 * entry gives its chunks (a `seq` to tag them with for events).
 *
 * @example
 * const fold = createUiChunkFold(turn.runId);
 * send(fold.start());
 * for await (const entry of chats.stream(tenant, chatId, turn.taskId)) for (const chunk of fold.push(entry)) send(chunk);
 */
export function createUiChunkFold(runId: string) {
  const usage: UiChatUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0 };
  let ended = false;
  // UI-4: which tool call each approval request is about, and the calls a person denied.
  const approvals = new Map<string, string>();
  const denied = new Set<string>();
  // The plan decisions asked for, and the text of the latest plan (what its approval part shows).
  const plans = new Set<string>();
  let plan = "";
  const text = (id: string, type: "text" | "reasoning", delta: string): UiMessageChunk[] =>
    delta === "" ? [] : [{ type: `${type}-start`, id }, { type: `${type}-delta`, id, delta }, { type: `${type}-end`, id }];
  const finish = (status: string, finishReason: string): UiMessageChunk[] => {
    ended = true;
    return [{ type: "finish", finishReason, messageMetadata: { status, usage: { ...usage } } }];
  };

  function event(event: SessionEvent): UiMessageChunk[] {
    // A run continued after a pause (an approval) goes on in the same message.
    if (event.type !== "run_finished" && event.type !== "run_stopped") ended = false;
    switch (event.type) {
      case "approval_wait": {
        const { requestId, kind, toolCallId } = event.payload;
        if (kind === "plan") {
          // A plan's decision is a `plan` tool part asking for approval (its request id is both ids).
          approvals.set(requestId, requestId);
          plans.add(requestId);
          return [{ type: "tool-input-available", toolCallId: requestId, toolName: "plan", input: { plan }, dynamic: true }, { type: "tool-approval-request", approvalId: requestId, toolCallId: requestId }];
        }
        if (kind !== "tool_approval" || toolCallId === undefined) return [];
        approvals.set(requestId, toolCallId);
        return [{ type: "tool-approval-request", approvalId: requestId, toolCallId }];
      }
      case "approval_decision": {
        const { requestId, outcome } = event.payload;
        const toolCallId = approvals.get(requestId);
        if (toolCallId === undefined) return [];
        const approved = outcome === "approved";
        // The log's reason is the agent's sentence about the denial, not the person's words: the client keeps its own.
        const chunks: UiMessageChunk[] = [{ type: "tool-approval-response", approvalId: requestId, approved }];
        if (!approved) {
          denied.add(toolCallId);
          chunks.push({ type: "tool-output-denied", toolCallId });
        } else if (plans.has(requestId)) chunks.push({ type: "tool-output-available", toolCallId, output: { approved: true }, dynamic: true });
        return chunks;
      }
      case "assistant_message": {
        const blocks = event.payload.shown ?? event.payload.message.content;
        const chunks: UiMessageChunk[] = [{ type: "start-step" }];
        blocks.forEach((block, index) => {
          const id = `${event.seq}.${index}`;
          if (block.type === "text") chunks.push(...text(id, "text", block.text));
          else if (block.type === "reasoning") chunks.push(...text(id, "reasoning", block.text));
          else if (block.type === "toolCall") chunks.push({ type: "tool-input-available", toolCallId: block.id, toolName: block.name, input: block.arguments, dynamic: true });
        });
        chunks.push({ type: "finish-step" });
        return chunks;
      }
      case "model_retry": {
        // OUT-3: what a failed attempt streamed stays in the answer.
        const chunks: UiMessageChunk[] = [];
        event.payload.partial.forEach((block, index) => {
          if (block.type === "text") chunks.push(...text(`${event.seq}.${index}`, "text", block.text));
        });
        chunks.push({ type: "data-notice", id: `${event.seq}`, data: { kind: "retry", attempt: event.payload.attempt, max: event.payload.max, reason: event.payload.kind } });
        return chunks;
      }
      case "tool_result": {
        const { message, details } = event.payload;
        // A denied call's result is the denial the client already shows.
        if (denied.has(message.toolCallId)) return [];
        if (message.isError) return [{ type: "tool-output-error", toolCallId: message.toolCallId, errorText: textOf(message.content), dynamic: true }];
        return [{ type: "tool-output-available", toolCallId: message.toolCallId, output: details ?? textOf(message.content), dynamic: true }];
      }
      case "usage": {
        const entry = event.payload.entry;
        usage.inputTokens += entry.input;
        usage.outputTokens += entry.output;
        usage.totalTokens += entry.total;
        usage.cachedInputTokens += entry.cacheRead;
        return [{ type: "message-metadata", messageMetadata: { usage: { ...usage } } }];
      }
      case "user_message": {
        // UI-5: a message steered into this turn, where the run took it (the prompt is the client's own message).
        const { steer, message } = event.payload;
        if (!steer) return [];
        // The AI SDK's own part for it (`steering-message`: a user message added to the run before the next step).
        return [{ type: "steering-message", id: chatMessageIdOf(steer.id), parts: [{ type: "text", text: typeof message.content === "string" ? message.content : textOf(message.content) }] }];
      }
      case "plan":
        plan = event.payload.text;
        return [{ type: "data-plan", id: `${runId}.plan.${event.payload.planIndex}`, data: { text: event.payload.text } }];
      case "compaction":
        return [{ type: "data-notice", id: `${event.seq}`, data: { kind: "compaction", summary: event.payload.summary } }];
      case "run_finished":
        return finish("completed", "stop");
      case "run_stopped": {
        const { status } = event.payload;
        if (status === "waiting") return finish("waiting", "other");
        if (status === "cancelled") return stopped();
        ended = true;
        return [{ type: "error", errorText: `[steamharness] [chat] the turn failed (${event.payload.code ?? "internal"})` }];
      }
      default:
        return [];
    }
  }

  /** UI-3: a stopped turn keeps what it said; the message says it was stopped. */
  const stopped = (): UiMessageChunk[] => {
    ended = true;
    return [{ type: "message-metadata", messageMetadata: { status: "stopped", usage: { ...usage } } }, { type: "abort", reason: "stopped" }];
  };

  return {
    /** The chunk that opens the turn's assistant message. */
    start: (): UiMessageChunk => ({ type: "start", messageId: uiMessageIdOf(runId) }),
    /** The chunks of one entry of the turn's stream. */
    push(entry: ChatStreamEntry): UiMessageChunk[] {
      if (entry.kind === "event") return event(entry.event);
      // The log said how the turn ended, or it ended before its run logged an end (cancelled while queued, failed to start).
      if (ended) return [];
      if (entry.status === "cancelled") return stopped();
      // UI-5: a steered message taken by the running turn has no answer of its own: its stream says where it went.
      if (entry.steeredInto !== undefined) return [{ type: "data-steer", data: { delivered: true, runId: entry.steeredInto }, transient: true }, ...finish("steered", "stop")];
      if (entry.status === "failed") {
        ended = true;
        return [{ type: "error", errorText: entry.error?.message ?? "[steamharness] [chat] the turn failed" }];
      }
      return finish(entry.status, entry.status === "completed" ? "stop" : "other");
    },
  };
}
