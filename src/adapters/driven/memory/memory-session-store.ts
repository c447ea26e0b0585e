import type { Clock } from "../../../ports/clock.js";
import type { SessionAddress, SessionStore } from "../../../ports/session-store.js";
import { createSessionStore, type EventRow, type SessionBase, type SessionPayloads, type SessionRows } from "../kernel/session-store.js";
import { directCall } from "../kernel/store-call.js";

/** Options of {@link createMemorySessionStore}. */
export interface MemorySessionStoreOptions {
  address?: SessionAddress;
  clock?: Clock;
  /**
   * How events are kept: `"json"` (default) as JSON text rows, the reference store; `"objects"`
   * as copies of their objects, which share their strings (strings are immutable), so a 1 MB
   * prompt that several events and the agent's history cache name is held once, not ~3.3 MiB as
   * text rows (SEC-7, the gateway's conversations). Reads hand out fresh copies either way.
   */
  events?: "json" | "objects";
  /** A fork's pointer (FORK-1): the store holds the events after `base.seq`, numbered on from it; the backend reads the prefix through. */
  base?: SessionBase;
  /** A fork's head before its own events: the last run started in the prefix. */
  lastRunId?: string | null;
}

/** A copy of a JSON value that shares its strings (own `__proto__` keys stay data, as in JSON.parse). */
function copy<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, copy(inner)])) as T;
}

const OBJECT_PAYLOADS: SessionPayloads<unknown> = { encode: copy, decode: copy };

/**
 * One session's rows in memory: the log as rows (payloads as JSON text, so every read hands out
 * a fresh copy), indexes by event id and run, the kept snapshot. Every step is synchronous, so an
 * append is atomic within the process. A fork's rows start after its point (`start.seq`).
 *
 * @example
 * const rows = createMemorySessionRows();
 */
export function createMemorySessionRows<P = string>(start: { seq: number; lastRunId: string | null } = { seq: 0, lastRunId: null }): SessionRows<P> {
  const events: EventRow<P>[] = [];
  const byId = new Map<string, EventRow<P>>();
  const byRun = new Map<string, EventRow<P>[]>();
  let snapshot: { atSeq: number; state: string } | null = null;
  let lastRunId = start.lastRunId;
  const lastSeq = () => start.seq + events.length;
  const rows: SessionRows<P> = {
    append(rows, at) {
      const found = new Map<string, EventRow<P>>();
      let appended = 0;
      for (const row of rows) {
        let stored = byId.get(row.eventId);
        if (!stored) {
          stored = { ...row, seq: lastSeq() + 1, at };
          events.push(stored);
          byId.set(row.eventId, stored);
          const run = byRun.get(row.runId);
          if (run) run.push(stored);
          else byRun.set(row.runId, [stored]);
          if (row.type === "run_started") lastRunId = row.runId;
          appended += 1;
        }
        found.set(row.eventId, stored);
      }
      return { byId: found, appended };
    },
    byRun: (runId) => byRun.get(runId) ?? [],
    after(afterSeq, { types, limit = Number.POSITIVE_INFINITY, newestFirst, throughSeq = Number.POSITIVE_INFINITY }) {
      // Walks from the wanted end and stops at `limit`: reading the end of a long log costs what it returns.
      const out: EventRow<P>[] = [];
      const first = Math.max(0, afterSeq - start.seq);
      const end = Math.min(events.length, throughSeq - start.seq);
      const take = (row: EventRow<P>) => (!types || types.includes(row.type)) && out.push(row);
      if (newestFirst) for (let i = end - 1; i >= first && out.length < limit; i--) take(events[i]);
      else for (let i = first; i < end && out.length < limit; i++) take(events[i]);
      return out;
    },
    byId: (eventId) => byId.get(eventId),
    head: () => ({ lastSeq: lastSeq(), lastRunId, atSeq: snapshot?.atSeq ?? null, state: snapshot?.state ?? null }),
    putSnapshot(atSeq, state, check) {
      check(lastSeq(), snapshot?.atSeq ?? null);
      snapshot = { atSeq, state };
    },
    close: async () => {},
  };
  return rows;
}

/**
 * The in-memory session store: the reference adapter of the session-store port, the kernel's
 * store over {@link createMemorySessionRows}. It keeps the log for the life of the object, so
 * re-running a run id in the same process replays it (SES-3).
 *
 * @example
 * const store = createMemorySessionStore();
 * await store.append([{ eventId: "run-1/start", runId: "run-1", type: "plan", payload: { planIndex: 0, text: "…" } }]);
 */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  const common = { address: options.address ?? { projectId: "memory", sessionKey: "agent" }, call: directCall, clock: options.clock ?? { now: () => Date.now() }, family: "memory", base: options.base ?? null };
  const start = { seq: options.base?.seq ?? 0, lastRunId: options.lastRunId ?? null };
  if (options.events === "objects") return createSessionStore({ ...common, rows: createMemorySessionRows<unknown>(start), payloads: OBJECT_PAYLOADS });
  return createSessionStore({ ...common, rows: createMemorySessionRows(start) });
}
