/**
 * The session store's rows, mapped once (ARCH-3): events and snapshots as the SQL row drivers
 * (SQLite, PostgreSQL) store them, and the snapshot rules every store (memory included) keeps.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import { isJsonValue, type JsonValue } from "../../../domain/json.js";
import type { SessionEvent, SessionEventInput, SessionHead, SessionSnapshot } from "../../../ports/session-store.js";

/** A session event as stored in the `session_events` table: the payload as JSON text (or as a driver's own `P`, see {@link SessionPayloads}). */
export interface EventRow<P = string> {
  seq: number;
  eventId: string;
  runId: string;
  type: string;
  payload: P;
  at: number;
}

/** How a driver keeps payloads: the SQL drivers (and memory by default) as JSON text. */
export interface SessionPayloads<P> {
  /** The stored form of a validated payload; must not share mutable objects with the caller's. */
  encode(payload: unknown): P;
  /** A fresh payload from its stored form (callers may mutate it). */
  decode(stored: P): unknown;
}

/** Payloads as JSON text. */
export const JSON_PAYLOADS: SessionPayloads<string> = { encode: (payload) => JSON.stringify(payload), decode: (stored) => JSON.parse(stored) as unknown };

/**
 * The row of an event to insert, before its `seq` and write time are known.
 *
 * @example
 * eventRow(event).payload // '{"planIndex":0,"text":"…"}'
 */
export function eventRow<P = string>(event: SessionEventInput, payloads: SessionPayloads<P> = JSON_PAYLOADS as unknown as SessionPayloads<P>): Omit<EventRow<P>, "seq" | "at"> {
  return { eventId: event.eventId, runId: event.runId, type: event.type, payload: payloads.encode(event.payload) };
}

/**
 * The port's event from a stored row; a fresh object every time, so callers may mutate it.
 *
 * @example
 * rowEvent({ seq: 1, eventId: "e", runId: "r", type: "plan", payload: "{}", at: 0 }).seq // 1
 */
export function rowEvent<P = string>(row: EventRow<P>, payloads: SessionPayloads<P> = JSON_PAYLOADS as unknown as SessionPayloads<P>): SessionEvent {
  return {
    eventId: row.eventId,
    runId: row.runId,
    type: row.type,
    payload: payloads.decode(row.payload),
    seq: row.seq,
    at: row.at,
  } as SessionEvent;
}

/**
 * Checks a snapshot's `atSeq` (a non-negative integer) and state (JSON) and returns the state
 * as JSON text. The range against the log is checked inside the write transaction.
 *
 * @example
 * validateSnapshot({ atSeq: 3, state: { summary: "…" } }) // '{"summary":"…"}'
 */
export function validateSnapshot(snapshot: SessionSnapshot): string {
  if (!Number.isInteger(snapshot.atSeq) || snapshot.atSeq < 0) {
    throw new SteamharnessError("input_validation", `snapshot atSeq ${String(snapshot.atSeq)} is not a non-negative integer`, { field: "atSeq" });
  }
  if (!isJsonValue(snapshot.state)) throw new SteamharnessError("input_validation", "snapshot state is not JSON", { field: "state" });
  return JSON.stringify(snapshot.state);
}

/**
 * A stored snapshot state parsed back.
 *
 * @example
 * snapshotState('{"a":1}') // { a: 1 }
 */
export function snapshotState(text: string): JsonValue {
  return JSON.parse(text) as JsonValue;
}

/**
 * Refuses a snapshot beyond the log's last event or older than the kept one (`keptAtSeq`, null
 * when none); checked inside the write's atomic step.
 *
 * @example
 * checkSnapshotPosition(3, head.lastSeq, head.snapshotAtSeq);
 */
export function checkSnapshotPosition(atSeq: number, lastSeq: number, keptAtSeq: number | null): void {
  if (atSeq > lastSeq) throw new SteamharnessError("input_validation", `snapshot atSeq ${atSeq} is outside the log (0..${lastSeq})`, { field: "atSeq" });
  if (keptAtSeq !== null && atSeq < keptAtSeq) throw new SteamharnessError("input_validation", `snapshot atSeq ${atSeq} is older than the kept one (${keptAtSeq})`, { field: "atSeq" });
}

/**
 * The head of a session from its stored meta and snapshot columns (`atSeq`/`state` null without
 * a snapshot).
 *
 * @example
 * headOf({ lastSeq: 3, lastRunId: "r", atSeq: null, state: null }) // { lastSeq: 3, snapshot: null, lastRunId: "r" }
 */
export function headOf(row: { lastSeq: number; lastRunId: string | null; atSeq: number | null; state: string | null }): SessionHead {
  const snapshot = row.atSeq === null || row.state === null ? null : { atSeq: row.atSeq, state: snapshotState(row.state) };
  return { lastSeq: row.lastSeq, snapshot, lastRunId: row.lastRunId };
}
