import { validateSessionEvent } from "../../../domain/agent/session-events.js";
import { SteamharnessError } from "../../../domain/errors.js";
import { isJsonValue } from "../../../domain/json.js";
import type { SessionAddress, SessionEvent, SessionSnapshot, SessionStore } from "../../../ports/session-store.js";

/** A copy of a JSON value that shares its strings (own `__proto__` keys stay data, as in JSON.parse). */
function copy<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, copy(inner)])) as T;
}

/**
 * One session's log kept as objects (SEC-7): same contract as `createMemorySessionStore`
 * (the session-store contract suite runs on both), but each event is a copy of its objects rather
 * than JSON text. A copy shares the strings of what it copies (strings are immutable), so a 1 MB
 * prompt that the `run_started` and `user_message` events both name, and the agent's history
 * cache's copy, are one string — not ~3.3 MiB as with text rows. Reads hand out fresh copies.
 *
 * @example
 * const store = createObjectSessionStore({ projectId: "p", conversationId: "c", sessionKey: "agent" }, { now: Date.now });
 */
export function createObjectSessionStore(address: SessionAddress, clock: { now(): number }): SessionStore {
  const events: SessionEvent[] = [];
  const byId = new Map<string, number>();
  const byRun = new Map<string, number[]>();
  let snapshot: SessionSnapshot | null = null;
  let lastRunId: string | null = null;
  return {
    address: copy(address),
    async append(inputs) {
      inputs.forEach(validateSessionEvent);
      const stored: SessionEvent[] = [];
      const fresh: SessionEvent[] = [];
      const batch = new Map<string, SessionEvent>();
      const at = clock.now();
      for (const input of inputs) {
        const known = byId.get(input.eventId);
        const repeated = known === undefined ? batch.get(input.eventId) : events[known - 1];
        if (repeated) {
          stored.push(copy(repeated));
          continue;
        }
        const event = { eventId: input.eventId, runId: input.runId, type: input.type, payload: copy(input.payload), seq: events.length + fresh.length + 1, at } as SessionEvent;
        batch.set(input.eventId, event);
        fresh.push(event);
        stored.push(copy(event));
      }
      // Validation happened up front, so committing cannot fail half-way: the batch is atomic.
      for (const event of fresh) {
        events.push(event);
        byId.set(event.eventId, event.seq);
        const list = byRun.get(event.runId) ?? [];
        list.push(event.seq);
        byRun.set(event.runId, list);
        if (event.type === "run_started") lastRunId = event.runId;
      }
      return { events: stored, appended: fresh.length };
    },
    readRun: async (runId) => (byRun.get(runId) ?? []).map((seq) => copy(events[seq - 1]!)),
    async readAfter(afterSeq, options = {}) {
      const types = options.types ? new Set<string>(options.types) : null;
      const limit = options.limit ?? Number.POSITIVE_INFINITY;
      const out: SessionEvent[] = [];
      const take = (event: SessionEvent): void => {
        if (!types || types.has(event.type)) out.push(copy(event));
      };
      const first = Math.max(0, afterSeq);
      if (options.newestFirst) for (let i = events.length - 1; i >= first && out.length < limit; i--) take(events[i]!);
      else for (let i = first; i < events.length && out.length < limit; i++) take(events[i]!);
      return out;
    },
    async get(eventId) {
      const seq = byId.get(eventId);
      return seq === undefined ? null : copy(events[seq - 1]!);
    },
    head: async () => ({ lastSeq: events.length, snapshot: snapshot && copy(snapshot), lastRunId }),
    async putSnapshot(next) {
      if (!Number.isInteger(next.atSeq) || next.atSeq < 0 || next.atSeq > events.length) {
        throw new SteamharnessError("input_validation", `snapshot atSeq ${next.atSeq} is outside the log (0..${events.length})`, { field: "atSeq" });
      }
      if (snapshot && next.atSeq < snapshot.atSeq) {
        throw new SteamharnessError("input_validation", `snapshot atSeq ${next.atSeq} is older than the kept one (${snapshot.atSeq})`, { field: "atSeq" });
      }
      if (!isJsonValue(next.state)) throw new SteamharnessError("input_validation", "snapshot state is not JSON", { field: "state" });
      snapshot = { atSeq: next.atSeq, state: copy(next.state) };
    },
    close: async () => {},
  };
}
