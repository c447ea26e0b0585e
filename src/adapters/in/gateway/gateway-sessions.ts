/**
 * The in-memory sessions of one gateway conversation (SEC-7). The memory session store keeps each
 * event as JSON text, so a 1 MB prompt was held three times: in the `run_started` event, in the
 * `user_message` event, and parsed again in the agent's history cache — ~3.3 MiB per 1 MB
 * conversation. Here events are kept as copies of their objects: a copy shares the strings of
 * what it copies (strings are immutable), so the prompt both events name and the cache's copy
 * are one string. Same contract as the memory backend (the session-backend and session-store
 * contract suites run on it); reads hand out fresh copies, as there.
 */
import { validateSessionEvent } from "../../../domain/agent/session-events.js";
import { SteamharnessError } from "../../../domain/errors.js";
import { isJsonValue } from "../../../domain/json.js";
import type { SessionBackend } from "../../../ports/session-backend.js";
import type { SessionAddress, SessionEvent, SessionSnapshot, SessionStore } from "../../../ports/session-store.js";
import { createMemorySessionHostRecord, createMemorySessionHostStore, type MemorySessionHostRecord } from "../../../compose/local.js";
import { createMemorySessionLeaseProvider } from "../../../compose/local.js";

/** A copy of a JSON value that shares its strings (own `__proto__` keys stay data, as in JSON.parse). */
function copy<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, copy(inner)])) as T;
}

const unavailable = (what: string): SteamharnessError => new SteamharnessError("unavailable", `[steamharness] [gateway] ${what} is closed`);

/** One session's log, kept as objects. */
function createSessionLog(address: SessionAddress, clock: { now(): number }): Omit<SessionStore, "close"> {
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
  };
}

/**
 * The session backend of one gateway conversation: in memory, not durable, one owner per session
 * (leases), logs kept for the life of the backend.
 *
 * @example
 * const sessions = createConversationSessions();
 * const store = await sessions.open({ address, ownerId: "run-1" });
 */
export function createConversationSessions(): SessionBackend {
  const logs = new Map<string, Omit<SessionStore, "close">>();
  const hosts = new Map<string, MemorySessionHostRecord>();
  const leases = createMemorySessionLeaseProvider();
  let closed = false;
  const check = (databasePath: string | undefined): void => {
    if (closed) throw unavailable("the session backend");
    if (databasePath !== undefined) throw new SteamharnessError("input_validation", "the in-memory session backend has no session files: databasePath needs a SQLite backend", { field: "databasePath" });
  };
  const keyOf = (address: SessionAddress): string => JSON.stringify([address.projectId, address.conversationId ?? null, address.sessionKey]);
  const log = (address: SessionAddress, clock: { now(): number } | undefined): Omit<SessionStore, "close"> => {
    const key = keyOf(address);
    let found = logs.get(key);
    if (!found) {
      found = createSessionLog(address, clock ?? { now: () => Date.now() });
      logs.set(key, found);
    }
    return found;
  };
  return {
    kind: "memory",
    durable: false,
    acceptsDatabasePath: false,
    leases,
    async open(request) {
      check(request.databasePath);
      const lease = await leases.acquire(request.address, { ownerId: request.ownerId, onBusy: "throw" });
      const store = log(request.address, request.clock);
      let released = false;
      // The log outlives the lease: closing gives the session up, and this handle with it.
      const guard = <A extends unknown[], R>(call: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
        if (released) throw unavailable("the session store");
        return call(...args);
      };
      return {
        address: store.address,
        append: guard(store.append),
        readRun: guard(store.readRun),
        readAfter: guard(store.readAfter),
        get: guard(store.get),
        head: guard(store.head),
        putSnapshot: guard(store.putSnapshot),
        async close() {
          released = true;
          await lease?.release();
        },
      };
    },
    async openUnleased(request) {
      check(request.databasePath);
      if (!request.create && !logs.has(keyOf(request.address))) return null;
      return { ...log(request.address, request.clock), close: async () => {} };
    },
    async openHostStore(conversationId, options) {
      check(undefined);
      let record = hosts.get(conversationId);
      if (!record) {
        if (!options.create) return null;
        record = createMemorySessionHostRecord();
        hosts.set(conversationId, record);
      }
      return createMemorySessionHostStore(record);
    },
    async close() {
      closed = true;
    },
  };
}
