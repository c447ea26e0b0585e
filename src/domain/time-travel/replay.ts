/**
 * The recording a replay answers tool calls from (REPLAY-1): a recorded run's tool calls
 * (tool-calls.ts, the fold FORK-2's hazard report reads too) with their results, matched by tool
 * name and canonical arguments, each answer given once.
 */
import { canonicalJson } from "../stable-hash.js";
import type { JsonObject } from "../json.js";
import type { RecordedToolCall } from "./tool-calls.js";
import type { ModelPrice } from "../budget/model-price.js";
import type { SessionEvent, SessionEventInput } from "../agent/session-events.js";

/** How a replay treats the run's tools: answered from the recording, safe ones live, or all live. */
export type ReplayToolMode = "recorded" | "live-safe" | "live";

/** A call of the replay the recording lacks (another tool, other arguments, or one call too many). */
export interface ReplayDivergence {
  toolCallId: string;
  toolName: string;
  arguments: JsonObject;
  replay: "safe" | "never";
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
export function createRecordingAnswers(calls: readonly Pick<RecordedToolCall, "toolName" | "arguments" | "result">[]): RecordingAnswers {
  const queues = new Map<string, Array<NonNullable<RecordedToolCall["result"]>>>();
  for (const call of calls) {
    if (!call.result) continue;
    const key = keyOf(call.toolName, call.arguments);
    queues.set(key, [...(queues.get(key) ?? []), call.result]);
  }
  return { take: (toolName, args) => queues.get(keyOf(toolName, args))?.shift() ?? null };
}

/** What a replay's session records about it (REPLAY-2): the run it replays and how, so a viewer can diff the two. */
export interface ReplayRecord {
  /** The original run and its session. */
  of: { address: { projectId: string; conversationId?: string; sessionKey: string }; runId: string };
  /** The replay's run id. */
  runId: string;
  tools: ReplayToolMode;
  /** The price the replay's diff was costed with (USD per million tokens), or `null`. */
  price: ModelPrice | null;
}

/**
 * The id of a replay session's record, from its session key: found by one lookup.
 *
 * @example
 * replayRecordEventId("replay-r1") // "replay/replay-r1"
 */
export function replayRecordEventId(sessionKey: string): string {
  return `replay/${sessionKey}`;
}

/**
 * The replay session's record event (written with its forked history, before its run).
 *
 * @example
 * await sessions.forkLog({ from, to, throughSeq, append: [replayRecordEvent(to.sessionKey, record)] });
 */
export function replayRecordEvent(sessionKey: string, record: ReplayRecord): SessionEventInput {
  return { eventId: replayRecordEventId(sessionKey), runId: "replay", type: "extension", payload: { feature: "replay", data: JSON.parse(JSON.stringify(record)) as JsonObject } };
}

/**
 * The replay record an event holds (a session's {@link replayRecordEventId} event), or `null`.
 *
 * @example
 * const record = replayRecordOf(await store.get(replayRecordEventId(address.sessionKey)));
 */
export function replayRecordOf(event: SessionEvent | null): ReplayRecord | null {
  return event?.type === "extension" && event.payload.feature === "replay" ? (event.payload.data as unknown as ReplayRecord) : null;
}
