/**
 * The session-store port written once (ARCH-3): event and snapshot validation, repeats within a
 * batch, the result in input order, read options, `unavailable` after close, over a family's
 * {@link SessionRows} (which number, store and read the log).
 */
import { SteamharnessError } from "../../../domain/errors.js";
import { validateSessionEvent } from "../../../domain/agent/session-events.js";
import type { Clock } from "../../../ports/clock.js";
import type { SessionAddress, SessionStore } from "../../../ports/session-store.js";
import { JSON_PAYLOADS, checkSnapshotPosition, eventRow, headOf, rowEvent, validateSnapshot, type EventRow, type SessionPayloads } from "./session-rows.js";
import type { Awaitable, StoreCall } from "./store-call.js";

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
  /** Rows with `seq > afterSeq` (of `types` when given, never empty), seq order or newest first, at most `limit`. */
  after(afterSeq: number, options: { types?: readonly string[]; limit?: number; newestFirst: boolean }): Awaitable<EventRow<P>[]>;
  /** The row of an event id, or undefined. */
  byId(eventId: string): Awaitable<EventRow<P> | undefined>;
  /** Last seq, last run id and the kept snapshot's columns. */
  head(): Awaitable<{ lastSeq: number; lastRunId: string | null; atSeq: number | null; state: string | null }>;
  /** One atomic step: `check(lastSeq, keptAtSeq)` (it throws to refuse), then keeps only this snapshot. */
  putSnapshot(atSeq: number, state: string, check: (lastSeq: number, keptAtSeq: number | null) => void): Awaitable<void>;
  /** Releases the rows' handles; called once. */
  close(): Promise<void>;
}

/** Options of {@link createSessionStore}. */
export interface SessionStoreKernelOptions<P = string> {
  address: SessionAddress;
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
export function createSessionStore<P = string>(options: SessionStoreKernelOptions<P>): SessionStore {
  const { rows, call, clock } = options;
  const payloads = options.payloads ?? (JSON_PAYLOADS as unknown as SessionPayloads<P>);
  const toEvent = (row: EventRow<P>) => rowEvent(row, payloads);
  let closing: Promise<void> | null = null;
  const run = async <T>(what: string, step: () => Awaitable<T>): Promise<T> => {
    if (closing) throw new SteamharnessError("unavailable", `[steamharness] [${options.family}] session store is closed`);
    return call(`session ${what}`, step);
  };
  return {
    // A JSON copy: structuredClone would hand out objects of another realm under test runners.
    address: JSON.parse(JSON.stringify(options.address)) as SessionAddress,
    append: (inputs) =>
      run("append", async () => {
        inputs.forEach(validateSessionEvent);
        // Repeats within the batch resolve to their first occurrence.
        const unique = new Map<string, NewEventRow<P>>();
        for (const input of inputs) if (!unique.has(input.eventId)) unique.set(input.eventId, eventRow(input, payloads));
        if (unique.size === 0) return { events: [], appended: 0 };
        const { byId, appended } = await rows.append([...unique.values()], clock.now());
        return { events: inputs.map((input) => toEvent(byId.get(input.eventId)!)), appended };
      }),
    readRun: (runId) => run("readRun", async () => (await rows.byRun(runId)).map(toEvent)),
    readAfter: (afterSeq, readOptions = {}) =>
      run("readAfter", async () => {
        if (readOptions.limit === 0 || readOptions.types?.length === 0) return [];
        return (await rows.after(afterSeq, { types: readOptions.types, limit: readOptions.limit, newestFirst: readOptions.newestFirst === true })).map(toEvent);
      }),
    get: (eventId) =>
      run("get", async () => {
        const row = await rows.byId(eventId);
        return row ? toEvent(row) : null;
      }),
    head: () => run("head", async () => headOf(await rows.head())),
    putSnapshot: (next) =>
      run("putSnapshot", async () => {
        const state = validateSnapshot(next);
        await rows.putSnapshot(next.atSeq, state, (lastSeq, kept) => checkSnapshotPosition(next.atSeq, lastSeq, kept));
      }),
    close() {
      closing ??= rows.close();
      return closing;
    },
  };
}
