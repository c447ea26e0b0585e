import { SteamharnessError } from "../../domain/errors.js";
import { validateSessionEvent } from "../../domain/agent/session-events.js";
import type { Clock } from "../../ports/clock.js";
import { checkSnapshotPosition, headOf, validateSnapshot } from "../store-kernel/session-rows.js";
import type {
  SessionAddress,
  SessionAppendResult,
  SessionEvent,
  SessionHead,
  SessionReadOptions,
  SessionStore,
} from "../../ports/session-store.js";

/** Options of {@link createMemorySessionStore}. */
export interface MemorySessionStoreOptions {
  address?: SessionAddress;
  clock?: Clock;
}

// A JSON copy (events are JSON by contract); structuredClone would hand out objects of another realm under test runners.
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The in-memory session store: the reference adapter of the session-store port. It keeps the
 * log for the life of the object, so re-running a run id in the same process replays it (SES-3).
 *
 * @example
 * const store = createMemorySessionStore();
 * await store.append([{ eventId: "run-1/start", runId: "run-1", type: "plan", payload: { planIndex: 0, text: "…" } }]);
 */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  const address = options.address ?? { projectId: "memory", sessionKey: "agent" };
  const clock = options.clock ?? { now: () => Date.now() };
  // Events are kept serialised: every read hands out a fresh copy, and a write copies once.
  const events: Array<{ json: string; type: string }> = [];
  const byId = new Map<string, number>();
  const byRun = new Map<string, number[]>();
  let snapshot: { atSeq: number; state: string } | null = null;
  let lastRunId: string | null = null;
  let closed = false;

  const open = (): void => {
    if (closed) throw new SteamharnessError("unavailable", "[steamharness] [memory] session store is closed");
  };
  const read = (seq: number): SessionEvent => JSON.parse(events[seq - 1]!.json) as SessionEvent;

  return {
    address: clone(address),
    async append(inputs): Promise<SessionAppendResult> {
      open();
      inputs.forEach(validateSessionEvent);
      const stored: SessionEvent[] = [];
      const fresh: Array<{ json: string; type: string; eventId: string; runId: string }> = [];
      const batch = new Map<string, number>();
      const at = clock.now();
      for (const input of inputs) {
        const known = byId.get(input.eventId) ?? batch.get(input.eventId);
        if (known !== undefined) {
          stored.push(known <= events.length ? read(known) : (JSON.parse(fresh[known - events.length - 1]!.json) as SessionEvent));
          continue;
        }
        const seq = events.length + fresh.length + 1;
        const json = JSON.stringify({ eventId: input.eventId, runId: input.runId, type: input.type, payload: input.payload, seq, at });
        batch.set(input.eventId, seq);
        fresh.push({ json, type: input.type, eventId: input.eventId, runId: input.runId });
        stored.push(JSON.parse(json) as SessionEvent);
      }
      // Validation happened up front, so committing cannot fail half-way: the batch is atomic.
      for (const event of fresh) {
        events.push({ json: event.json, type: event.type });
        const seq = events.length;
        byId.set(event.eventId, seq);
        const list = byRun.get(event.runId) ?? [];
        list.push(seq);
        byRun.set(event.runId, list);
        if (event.type === "run_started") lastRunId = event.runId;
      }
      return { events: stored, appended: fresh.length };
    },
    async readRun(runId) {
      open();
      return (byRun.get(runId) ?? []).map(read);
    },
    async readAfter(afterSeq, readOptions: SessionReadOptions = {}) {
      open();
      const types = readOptions.types ? new Set<string>(readOptions.types) : null;
      const out: SessionEvent[] = [];
      const limit = readOptions.limit ?? Number.POSITIVE_INFINITY;
      const first = Math.max(0, afterSeq);
      const take = (i: number) => {
        if (!types || types.has(events[i]!.type)) out.push(read(i + 1));
      };
      if (readOptions.newestFirst) for (let i = events.length - 1; i >= first && out.length < limit; i--) take(i);
      else for (let i = first; i < events.length && out.length < limit; i++) take(i);
      return out;
    },
    async get(eventId) {
      open();
      const seq = byId.get(eventId);
      return seq === undefined ? null : read(seq);
    },
    async head(): Promise<SessionHead> {
      open();
      return headOf({ lastSeq: events.length, lastRunId, atSeq: snapshot?.atSeq ?? null, state: snapshot?.state ?? null });
    },
    async putSnapshot(next) {
      open();
      const state = validateSnapshot(next);
      checkSnapshotPosition(next.atSeq, events.length, snapshot === null ? null : snapshot.atSeq);
      snapshot = { atSeq: next.atSeq, state };
    },
    async close() {
      closed = true;
    },
  };
}
