/**
 * A fork's rules (issue 46: FORK-1, FORK-2): where a fork point is, which of the parent's tool
 * calls it leaves behind (the hazard report), the record a fork keeps in its own log, and which
 * of its model's calls repeat a hazard. Pure.
 */
import { SteamharnessError } from "../errors.js";
import type { JsonObject } from "../json.js";
import { canonicalJson } from "../stable-hash.js";
import type { SessionEvent, SessionEventInput } from "../agent/session-events.js";
import { recordedToolCalls, toolCallSummary, type RecordedToolCall, type ToolReplayClass } from "./tool-calls.js";

/** Where to fork: after the event with this `seq` (0: before everything), or after the first `turn` runs. */
export type ForkPoint = { seq: number } | { turn: number };

/**
 * What a repeat of an unsafe call the parent made after the point meets in the fork: `"decide"`
 * (default) a fresh decision, whatever approval the parent had or the catalog grants; `"recorded"`
 * the parent's recorded result, without running the tool (a fresh decision when it has none).
 */
export type ForkEffects = "decide" | "recorded";

/** One of the parent's tool calls after the fork point (FORK-2). */
export interface ForkHazard {
  /** The parent session's seq of the call's intent. */
  seq: number;
  runId: string;
  toolCallId: string;
  toolName: string;
  arguments: JsonObject;
  replay: ToolReplayClass;
  /** What the parent's call did: whether the tool ran, its approval, a one-line result. */
  ran: boolean;
  approval: "approved" | "denied" | null;
  summary: string;
  /** The parent's recorded result (`null`: none), what `effects: "recorded"` answers a repeat with. */
  result: RecordedToolCall["result"];
}

/** What a fork keeps about itself: the first event after its copied prefix (an `extension` event, feature `fork`). */
export interface ForkRecord {
  parent: { projectId: string; conversationId?: string; sessionKey: string };
  /** The last parent event the fork holds. */
  atSeq: number;
  effects: ForkEffects;
  hazards: ForkHazard[];
  /** The parent's own lineage, oldest first (each without its `ancestors`): a fork of a fork keeps its ancestors' guards. */
  ancestors: Array<Omit<ForkRecord, "ancestors">>;
}

/** The run id fork records are written under. */
const FORK_RUN = "fork";

/**
 * The id of a session's own fork record, from its session key: found by one lookup (`get`), and
 * never equal to an ancestor's record, which the fork's copied prefix may hold.
 *
 * @example
 * forkRecordEventId("agent#fork-1") // "fork/agent#fork-1"
 */
export function forkRecordEventId(sessionKey: string): string {
  return `${FORK_RUN}/${sessionKey}`;
}

const badPoint = (message: string) => new SteamharnessError("input_validation", message, { field: "at" });

/**
 * The seq a point names, given the parent's last seq and the seqs of its `run_started` events.
 * Throws `input_validation` (field `at`) for a point that is not a non-negative integer or lies past the head.
 *
 * @example
 * forkSeq({ turn: 1 }, 9, [1, 5]) // 4: the first run's events
 * forkSeq({ seq: 7 }, 9, [1, 5]) // 7
 */
export function forkSeq(point: ForkPoint, lastSeq: number, runStarts: readonly number[]): number {
  const value = "seq" in point ? point.seq : point.turn;
  if (!Number.isSafeInteger(value) || value < 0) throw badPoint(`the fork point ${String(value)} is not a non-negative integer`);
  if ("seq" in point) {
    if (value > lastSeq) throw badPoint(`seq ${value} is past the session's last event (${lastSeq})`);
    return value;
  }
  if (value > runStarts.length) throw badPoint(`turn ${value} is past the session's last turn (${runStarts.length})`);
  return value === runStarts.length ? lastSeq : runStarts[value]! - 1;
}

/**
 * The hazard report of a fork at `atSeq` (FORK-2): the parent's tool calls that the prefix does
 * not hold whole — their intent, start, decision or result lies after the point — in intent order.
 * `events` are the parent's events after the point plus those of the run the point cuts (the
 * intents before the point).
 *
 * @example
 * const hazards = forkHazards([...await parent.readRun(cutRunId), ...await parent.readAfter(at)], at);
 */
export function forkHazards(events: readonly SessionEvent[], atSeq: number): ForkHazard[] {
  const bySeq = new Map(events.map((event) => [event.seq, event]));
  return recordedToolCalls([...bySeq.values()])
    .filter((call) => call.lastSeq > atSeq)
    .map((call) => ({
      seq: call.firstSeq, runId: call.runId, toolCallId: call.toolCallId, toolName: call.toolName, arguments: call.arguments,
      replay: call.replay, ran: call.ran, approval: call.approval, summary: toolCallSummary(call), result: call.result,
    }));
}

/**
 * The fork's own first event: what it forked, where, and the hazards it must not re-fire.
 *
 * @example
 * await fork.append([forkRecordEvent("agent#fork-1", record)]);
 */
export function forkRecordEvent(sessionKey: string, record: ForkRecord): SessionEventInput {
  return { eventId: forkRecordEventId(sessionKey), runId: FORK_RUN, type: "extension", payload: { feature: "fork", data: JSON.parse(JSON.stringify(record)) as JsonObject } };
}

/**
 * The fork record an event holds (a session's {@link forkRecordEventId} event), or `null`.
 *
 * @example
 * const record = forkRecordOf(await store.get(forkRecordEventId(address.sessionKey)));
 */
export function forkRecordOf(event: SessionEvent | null): ForkRecord | null {
  return event?.type === "extension" && event.payload.feature === "fork" ? (event.payload.data as unknown as ForkRecord) : null;
}

/**
 * A session's lineage from its own fork record, oldest ancestor first, its own record last (`[]`
 * for a session that is no fork).
 *
 * @example
 * forkLineageOf(record).map((fork) => fork.parent.sessionKey);
 */
export function forkLineageOf(record: ForkRecord | null): Array<Omit<ForkRecord, "ancestors">> {
  if (!record) return [];
  const { ancestors, ...own } = record;
  return [...ancestors, own];
}

/**
 * The hazard a model's call in a fork repeats — same tool, canonically equal arguments, a call
 * not declared safe — with what the fork answers it with, or `null`. Every record of the lineage
 * counts, newest first: a fork of a fork inherits its ancestors' guards, whatever its point.
 *
 * @example
 * const repeat = repeatedHazard(forkLineageOf(record), { name: "charge", arguments: { amount: 5 } });
 * if (repeat?.recorded) return repeat.recorded; // effects: "recorded": the parent's result
 */
export function repeatedHazard(records: ReadonlyArray<Omit<ForkRecord, "ancestors">>, call: { name: string; arguments: unknown }): { hazard: ForkHazard; recorded: ForkHazard["result"] } | null {
  const key = canonicalJson(call.arguments ?? null);
  for (const record of [...records].reverse()) {
    const hazard = record.hazards.find((item) => item.replay !== "safe" && item.toolName === call.name && canonicalJson(item.arguments) === key);
    if (hazard) return { hazard, recorded: record.effects === "recorded" ? hazard.result : null };
  }
  return null;
}
