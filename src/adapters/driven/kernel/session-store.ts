/**
 * The session-store port written once (ARCH-3, ARCH-8): event and snapshot validation, repeats
 * within a batch, the result in input order, read options, the snapshot's position rules,
 * `unavailable` after close, over a family's {@link SessionRows} (which number, store and read
 * the log: memory, SQLite, PostgreSQL).
 */
import { SteamharnessError } from "../../../domain/errors.js";
import { isJsonValue, type JsonValue } from "../../../domain/json.js";
import { validateSessionEvent } from "../../../domain/agent/session-events.js";
import type { Clock } from "../../../ports/clock.js";
import type { SessionAddress, SessionEvent, SessionReadOptions, SessionStore } from "../../../ports/session-store.js";
import type { Awaitable, StoreCall } from "./store-call.js";

/** A session event as the rows keep it (SQL: the `session_events` table): the payload as JSON text, or as a driver's own `P` (see {@link SessionPayloads}). */
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

const JSON_PAYLOADS: SessionPayloads<string> = { encode: (payload) => JSON.stringify(payload), decode: (stored) => JSON.parse(stored) as unknown };

const badSnapshot = (message: string, field: string) => new SteamharnessError("input_validation", message, { field });

/** An event row before its `seq` and write time are known. */
export type NewEventRow<P = string> = Omit<EventRow<P>, "seq" | "at">;

/** Row access of one session's log. */
export interface SessionRows<P = string> {
  /**
   * One atomic step: stores the rows whose ids are not stored yet (ids are distinct, in order)
   * after the last seq, stamped `at`; resolves the stored row of every given id and how many were new.
   */
  append(rows: NewEventRow<P>[], at: number): Awaitable<{ byId: Map<string, EventRow<P>>; appended: number }>;
  /** The run's rows in seq order. */
  byRun(runId: string): Awaitable<EventRow<P>[]>;
  /** Rows with `seq > afterSeq` and, when given, `seq <= throughSeq` (of `types` when given, never empty), seq order or newest first, at most `limit`. */
  after(afterSeq: number, options: { types?: readonly string[]; limit?: number; newestFirst: boolean; throughSeq?: number }): Awaitable<EventRow<P>[]>;
  /** The row of an event id, or undefined. */
  byId(eventId: string): Awaitable<EventRow<P> | undefined>;
  /** Last seq, last run id and the kept snapshot's columns. */
  head(): Awaitable<{ lastSeq: number; lastRunId: string | null; atSeq: number | null; state: string | null }>;
  /** One atomic step: `check(lastSeq, keptAtSeq)` (it throws to refuse), then keeps only this snapshot. */
  putSnapshot(atSeq: number, state: string, check: (lastSeq: number, keptAtSeq: number | null) => void): Awaitable<void>;
  /** Releases the rows' handles; called once. */
  close(): Promise<void>;
}

/** A fork's pointer (FORK-1): the session whose events 1..`seq` it reads through to. */
export interface SessionBase {
  address: SessionAddress;
  seq: number;
}

/** The read options the kernel's stores take: the port's, and `throughSeq`, an upper bound of the seqs read (a fork's prefix). */
export interface SessionRangeOptions extends SessionReadOptions {
  throughSeq?: number;
}

/** A store whose `readAfter` honours {@link SessionRangeOptions}: every kernel store, and a fork's read-through one. */
export type RangedSessionStore = Omit<SessionStore, "readAfter"> & { readAfter(afterSeq: number, options?: SessionRangeOptions): Promise<SessionEvent[]> };

/** A family's store of one session's own rows; `base` names the log a fork reads its prefix from (the backend reads through to it). */
export type OwnSessionStore = RangedSessionStore & { readonly base?: SessionBase };

/** Options of {@link createSessionStore}. */
export interface SessionStoreKernelOptions<P = string> {
  address: SessionAddress;
  /** A fork's pointer, as the family keeps it; the store itself reads and writes only its own rows. */
  base?: SessionBase | null;
  rows: SessionRows<P>;
  /** How `rows` keep payloads; JSON text when absent. */
  payloads?: SessionPayloads<P>;
  /** Maps each step's faults (`storage_failure` with `cause`); steps may be async. */
  call: StoreCall;
  clock: Clock;
  /** The family, for the `unavailable` message. */
  family: string;
}

/**
 * The session store over a family's rows.
 *
 * @example
 * const store = createSessionStore({ address, rows, call: directCall, clock, family: "memory" });
 */
export function createSessionStore<P = string>(options: SessionStoreKernelOptions<P>): OwnSessionStore {
  const { rows, call, clock } = options;
  const payloads = options.payloads ?? (JSON_PAYLOADS as unknown as SessionPayloads<P>);
  // A fresh object every time, so callers may mutate it.
  const toEvent = (row: EventRow<P>) => ({ eventId: row.eventId, runId: row.runId, type: row.type, payload: payloads.decode(row.payload), seq: row.seq, at: row.at }) as SessionEvent;
  let closing: Promise<void> | null = null;
  const run = async <T>(what: string, step: () => Awaitable<T>): Promise<T> => {
    if (closing) throw new SteamharnessError("unavailable", `[steamharness] [${options.family}] session store is closed`);
    return call(`session ${what}`, step);
  };
  return {
    // A JSON copy: structuredClone would hand out objects of another realm under test runners.
    address: JSON.parse(JSON.stringify(options.address)) as SessionAddress,
    ...(options.base ? { base: JSON.parse(JSON.stringify(options.base)) as SessionBase } : {}),
    append: (inputs) =>
      run("append", async () => {
        inputs.forEach(validateSessionEvent);
        // Repeats within the batch resolve to their first occurrence.
        const unique = new Map<string, NewEventRow<P>>();
        for (const input of inputs) if (!unique.has(input.eventId)) unique.set(input.eventId, { eventId: input.eventId, runId: input.runId, type: input.type, payload: payloads.encode(input.payload) });
        if (unique.size === 0) return { events: [], appended: 0 };
        const { byId, appended } = await rows.append([...unique.values()], clock.now());
        return { events: inputs.map((input) => toEvent(byId.get(input.eventId)!)), appended };
      }),
    readRun: (runId) => run("readRun", async () => (await rows.byRun(runId)).map(toEvent)),
    readAfter: (afterSeq, readOptions: SessionRangeOptions = {}) =>
      run("readAfter", async () => {
        if (readOptions.limit === 0 || readOptions.types?.length === 0) return [];
        const { types, limit, throughSeq } = readOptions;
        return (await rows.after(afterSeq, { types, limit, newestFirst: readOptions.newestFirst === true, ...(throughSeq === undefined ? {} : { throughSeq }) })).map(toEvent);
      }),
    get: (eventId) =>
      run("get", async () => {
        const row = await rows.byId(eventId);
        return row ? toEvent(row) : null;
      }),
    head: () =>
      run("head", async () => {
        const head = await rows.head();
        const snapshot = head.atSeq === null || head.state === null ? null : { atSeq: head.atSeq, state: JSON.parse(head.state) as JsonValue };
        return { lastSeq: head.lastSeq, snapshot, lastRunId: head.lastRunId };
      }),
    putSnapshot: ({ atSeq, state }) =>
      run("putSnapshot", async () => {
        if (!Number.isInteger(atSeq) || atSeq < 0) throw badSnapshot(`snapshot atSeq ${String(atSeq)} is not a non-negative integer`, "atSeq");
        if (!isJsonValue(state)) throw badSnapshot("snapshot state is not JSON", "state");
        // The range against the log is checked inside the driver's atomic write.
        await rows.putSnapshot(atSeq, JSON.stringify(state), (lastSeq, kept) => {
          if (atSeq > lastSeq) throw badSnapshot(`snapshot atSeq ${atSeq} is outside the log (0..${lastSeq})`, "atSeq");
          if (kept !== null && atSeq < kept) throw badSnapshot(`snapshot atSeq ${atSeq} is older than the kept one (${kept})`, "atSeq");
        });
      }),
    close() {
      closing ??= rows.close();
      return closing;
    },
  };
}
