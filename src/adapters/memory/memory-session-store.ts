import { SteamharnessError } from "../../domain/errors.js";
import { isJsonValue } from "../../domain/json.js";
import type { Clock } from "../../ports/clock.js";
import type {
  SessionAddress,
  SessionAppendResult,
  SessionEvent,
  SessionEventInput,
  SessionHead,
  SessionReadOptions,
  SessionSnapshot,
  SessionStore,
} from "../../ports/session-store.js";

/** Options of {@link createMemorySessionStore}. */
export interface MemorySessionStoreOptions {
  address?: SessionAddress;
  clock?: Clock;
}

// A JSON copy (events are JSON by contract); structuredClone would hand out objects of another realm under test runners.
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function validate(event: SessionEventInput): void {
  for (const field of ["eventId", "runId", "type"] as const) {
    if (typeof event[field] !== "string" || event[field] === "") {
      throw new SteamharnessError("input_validation", `session event ${field} must be a non-empty string`, { field });
    }
  }
  if (!isJsonValue(event.payload)) {
    throw new SteamharnessError("input_validation", `session event ${event.eventId} has a payload that is not JSON`, { field: "payload" });
  }
}

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
  const events: SessionEvent[] = [];
  const byId = new Map<string, SessionEvent>();
  const byRun = new Map<string, SessionEvent[]>();
  let snapshot: SessionSnapshot | null = null;
  let lastRunId: string | null = null;
  let closed = false;

  const open = (): void => {
    if (closed) throw new SteamharnessError("unavailable", "[steamharness] [memory] session store is closed");
  };

  return {
    address: clone(address),
    async append(inputs): Promise<SessionAppendResult> {
      open();
      inputs.forEach(validate);
      const stored: SessionEvent[] = [];
      const fresh: SessionEvent[] = [];
      const batch = new Map<string, SessionEvent>();
      for (const input of inputs) {
        const known = byId.get(input.eventId) ?? batch.get(input.eventId);
        if (known) {
          stored.push(clone(known));
          continue;
        }
        const event = { ...clone(input), seq: events.length + fresh.length + 1, at: clock.now() } as SessionEvent;
        batch.set(event.eventId, event);
        fresh.push(event);
        stored.push(clone(event));
      }
      // Validation happened up front, so committing cannot fail half-way: the batch is atomic.
      for (const event of fresh) {
        events.push(event);
        byId.set(event.eventId, event);
        const list = byRun.get(event.runId) ?? [];
        list.push(event);
        byRun.set(event.runId, list);
        if (event.type === "run_started") lastRunId = event.runId;
      }
      return { events: stored, appended: fresh.length };
    },
    async readRun(runId) {
      open();
      return clone(byRun.get(runId) ?? []);
    },
    async readAfter(afterSeq, readOptions: SessionReadOptions = {}) {
      open();
      const types = readOptions.types ? new Set(readOptions.types) : null;
      const out: SessionEvent[] = [];
      for (let i = Math.max(0, afterSeq); i < events.length; i++) {
        const event = events[i]!;
        if (types && !types.has(event.type)) continue;
        out.push(clone(event));
        if (readOptions.limit !== undefined && out.length >= readOptions.limit) break;
      }
      return out;
    },
    async get(eventId) {
      open();
      const event = byId.get(eventId);
      return event ? clone(event) : null;
    },
    async head(): Promise<SessionHead> {
      open();
      return { lastSeq: events.length, snapshot: snapshot ? clone(snapshot) : null, lastRunId };
    },
    async putSnapshot(next) {
      open();
      if (!Number.isInteger(next.atSeq) || next.atSeq < 0 || next.atSeq > events.length) {
        throw new SteamharnessError("input_validation", `snapshot atSeq ${next.atSeq} is outside the log (0..${events.length})`, { field: "atSeq" });
      }
      if (snapshot && next.atSeq < snapshot.atSeq) {
        throw new SteamharnessError("input_validation", `snapshot atSeq ${next.atSeq} is older than the kept one (${snapshot.atSeq})`, { field: "atSeq" });
      }
      if (!isJsonValue(next.state)) throw new SteamharnessError("input_validation", "snapshot state is not JSON", { field: "state" });
      snapshot = clone(next);
    },
    async close() {
      closed = true;
    },
  };
}
