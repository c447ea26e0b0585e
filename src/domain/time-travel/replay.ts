/**
 * The recording a replay answers tool calls from (REPLAY-1): a recorded run's tool calls with
 * their results, matched by tool name and canonical arguments, each answer given once.
 */
import { canonicalJson } from "../stable-hash.js";
import type { JsonObject, JsonValue } from "../json.js";
import type { SessionEventInput } from "../agent/session-events.js";

/** One tool call of a recorded run and what it returned. */
export interface RecordedToolCall {
  toolCallId: string;
  toolName: string;
  arguments: JsonObject;
  /** The tool's replay class when it was called (SES-4). */
  replay: "safe" | "never";
  /** The committed result; absent when the run stopped before the call's result was committed. */
  result?: { isError: boolean; text: string; details: JsonValue };
}

/** How a replay treats the run's tools: answered from the recording, safe ones live, or all live. */
export type ReplayToolMode = "recorded" | "live-safe" | "live";

/** A call of the replay the recording lacks (another tool, other arguments, or one call too many). */
export interface ReplayDivergence {
  toolCallId: string;
  toolName: string;
  arguments: JsonObject;
  replay: "safe" | "never";
}

/**
 * The tool calls of a run's events, in call order, each with its committed result (codemode's
 * nested calls are the snippet's own business and stay out).
 *
 * @example
 * const calls = recordedToolCalls(await store.readRun(runId));
 */
export function recordedToolCalls(events: readonly SessionEventInput[]): RecordedToolCall[] {
  const calls = new Map<string, RecordedToolCall>();
  for (const event of events) {
    if (event.type === "tool_intent") {
      const { toolCallId, toolName, arguments: args, replay } = event.payload;
      calls.set(toolCallId, { toolCallId, toolName, arguments: args, replay });
    } else if (event.type === "tool_result") {
      const call = calls.get(event.payload.message.toolCallId);
      if (call) call.result = { isError: event.payload.message.isError, text: event.payload.message.content.map((block) => block.text).join("\n"), details: event.payload.details };
    }
  }
  return [...calls.values()];
}

/** The key a call is matched by: its tool and canonical arguments. */
const keyOf = (toolName: string, args: JsonObject): string => `${toolName}\u0000${canonicalJson(args)}`;

/** The answers of a recording, consumed in order; see {@link createRecordingAnswers}. */
export interface RecordingAnswers {
  /** The recorded result of the next unused call with this tool and arguments, or `null`. */
  take(toolName: string, args: JsonObject): RecordedToolCall["result"] | null;
}

/**
 * The answers of a recording: a call with the same tool and canonical arguments as a recorded
 * call (with a result) gets that call's result, each recorded call answering once, in order.
 *
 * @example
 * const answers = createRecordingAnswers(calls);
 * answers.take("lookup", { key: "a" }); // the recorded result, or null
 */
export function createRecordingAnswers(calls: readonly RecordedToolCall[]): RecordingAnswers {
  const queues = new Map<string, Array<NonNullable<RecordedToolCall["result"]>>>();
  for (const call of calls) {
    if (!call.result) continue;
    const key = keyOf(call.toolName, call.arguments);
    queues.set(key, [...(queues.get(key) ?? []), call.result]);
  }
  return { take: (toolName, args) => queues.get(keyOf(toolName, args))?.shift() ?? null };
}
