/**
 * The AI SDK UI message stream of a chat turn (UI-1, UI-2) as a pure fold over the turn's logged
 * session events: the same events give the same chunks, with the same part ids (`<prev>.<index>`:
 * block `index` of the model step after the run's step logged at `prev`, 0 for its first — known
 * before the step is committed, so the deltas sent live carry the ids the log gives them) and the same `messageId`, however often and by whichever host they are read. That is what lets
 * a resumed stream be a replay (`resumeStreamIsReplay`: the client rebuilds the message from
 * `start`) and a cursor (`after`) name a position in it: the log's `seq`.
 */
import type { SessionEvent } from "../../../domain/agent/session-events.js";
import { createSessionWalk } from "../../../domain/agent/session-walk.js";
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
  // UI-4: the calls a person denied (the walk knows which call each request is about).
  const walk = createSessionWalk();
  const denied = new Set<string>();
  // The text of the latest plan (what a plan's approval part shows).
  let plan = "";
  // The seq of the run's last model step (assistant message or retry), 0 before its first: a step's part ids name it.
  let previous = 0;
  const text = (id: string, type: "text" | "reasoning", delta: string): UiMessageChunk[] =>
    delta === "" ? [] : [{ type: `${type}-start`, id }, { type: `${type}-delta`, id, delta }, { type: `${type}-end`, id }];
  const finish = (status: string, finishReason: string): UiMessageChunk[] => {
    ended = true;
    return [{ type: "finish", finishReason, messageMetadata: { status, usage: { ...usage } } }];
  };

  function event(event: SessionEvent): UiMessageChunk[] {
    // A run continued after a pause (an approval) goes on in the same message.
    if (event.type !== "run_finished" && event.type !== "run_stopped") ended = false;
    const { step } = walk.step(event);
    switch (step?.type) {
      case "wait":
        // A plan's decision is a `plan` tool part asking for approval (its request id is both ids).
        if (step.kind === "plan") return [{ type: "tool-input-available", toolCallId: step.requestId, toolName: "plan", input: { plan }, dynamic: true }, { type: "tool-approval-request", approvalId: step.requestId, toolCallId: step.requestId }];
        if (step.kind !== "tool_approval" || step.toolCallId === undefined) return [];
        return [{ type: "tool-approval-request", approvalId: step.requestId, toolCallId: step.toolCallId }];
      case "decision": {
        // Only a request the client was shown (a paused tool approval or plan) gets its answer.
        const toolCallId = step.kind === "plan" ? step.requestId : step.kind === "tool_approval" ? step.toolCallId : undefined;
        if (!step.waited || toolCallId === undefined) return [];
        const approved = step.outcome === "approved";
        // The log's reason is the agent's sentence about the denial, not the person's words: the client keeps its own.
        const chunks: UiMessageChunk[] = [{ type: "tool-approval-response", approvalId: step.requestId, approved }];
        if (!approved) {
          denied.add(toolCallId);
          chunks.push({ type: "tool-output-denied", toolCallId });
        } else if (step.kind === "plan") chunks.push({ type: "tool-output-available", toolCallId, output: { approved: true }, dynamic: true });
        return chunks;
      }
      case "user":
        // UI-5: a message steered into this turn, where the run took it (the prompt is the client's own message),
        // as the AI SDK's own part (`steering-message`: a user message added to the run before the next step).
        if (event.type !== "user_message" || !event.payload.steer) return [];
        return [{ type: "steering-message", id: chatMessageIdOf(event.payload.steer.id), parts: [{ type: "text", text: step.text }] }];
      case "assistant": {
        const chunks: UiMessageChunk[] = [{ type: "start-step" }];
        step.blocks.forEach((block, index) => {
          const id = `${previous}.${index}`;
          if (block.type === "text") chunks.push(...text(id, "text", block.text));
          else if (block.type === "reasoning") chunks.push(...text(id, "reasoning", block.text));
          else if (block.type === "toolCall") chunks.push({ type: "tool-input-available", toolCallId: block.id, toolName: block.name, input: block.arguments, dynamic: true });
        });
        chunks.push({ type: "finish-step" });
        return chunks;
      }
      case "retry": {
        // OUT-3: what a failed attempt streamed stays in the answer.
        const chunks = step.partialText.flatMap(({ index, text: said }) => text(`${previous}.${index}`, "text", said));
        chunks.push({ type: "data-notice", id: `${event.seq}`, data: { kind: "retry", attempt: step.attempt, max: step.max, reason: step.kind } });
        return chunks;
      }
      case "tool-result":
        // A denied call's result is the denial the client already shows.
        if (denied.has(step.toolCallId)) return [];
        if (step.isError) return [{ type: "tool-output-error", toolCallId: step.toolCallId, errorText: step.text, dynamic: true }];
        return [{ type: "tool-output-available", toolCallId: step.toolCallId, output: step.details ?? step.text, dynamic: true }];
      case "usage":
        usage.inputTokens += step.entry.input;
        usage.outputTokens += step.entry.output;
        usage.totalTokens += step.entry.total;
        usage.cachedInputTokens += step.entry.cacheRead;
        return [{ type: "message-metadata", messageMetadata: { usage: { ...usage } } }];
      case "plan":
        plan = step.text;
        return [{ type: "data-plan", id: `${runId}.plan.${step.planIndex}`, data: { text: step.text } }];
      case "compaction":
        return [{ type: "data-notice", id: `${event.seq}`, data: { kind: "compaction", summary: step.payload.summary } }];
      case "end":
        if (step.status === "completed") return finish("completed", "stop");
        if (step.status === "waiting") return finish("waiting", "other");
        if (step.status === "cancelled") return stopped();
        ended = true;
        return [{ type: "error", errorText: `[steamharness] [chat] the turn failed (${step.code ?? "internal"})` }];
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
      if (entry.kind === "event") {
        const chunks = event(entry.event);
        if (entry.event.type === "assistant_message" || entry.event.type === "model_retry") previous = entry.event.seq;
        return chunks;
      }
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
