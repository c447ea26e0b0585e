import type { SessionEvent } from "../domain/agent/session-events.js";
import type { SessionHead, SessionStore } from "../ports/session-store.js";

/** The event types a run's context is built from. */
const MESSAGE_TYPES = ["user_message", "assistant_message", "tool_result"] as const;
/** Sessions remembered per scope (a storage, or a store instance); the least recently run go first. */
const SESSIONS_PER_SCOPE = 16;

/** Which session a store holds, as far as the agent can tell: `key` within `scope`. */
export interface SessionIdentity {
  scope: object;
  key: string;
}

interface CachedMessages {
  /** The snapshot the events follow. */
  fromSeq: number;
  /** Every message event up to this seq is in `events`: the seq of the last one. */
  throughSeq: number;
  events: readonly SessionEvent[];
}

/** Message events of recent sessions, kept by an agent between its runs. */
export type SessionMessagesCache = WeakMap<object, Map<string, CachedMessages>>;

/**
 * A fresh cache for {@link readSessionMessages}.
 *
 * @example
 * const cache = createSessionMessagesCache();
 */
export function createSessionMessagesCache(): SessionMessagesCache {
  return new WeakMap();
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** True when the last remembered event is still stored at its seq (the file was not replaced). */
async function stillStored(store: SessionStore, kept: CachedMessages): Promise<boolean> {
  const last = kept.events.at(-1);
  if (!last) return false;
  return (await store.get(last.eventId))?.seq === last.seq;
}

/**
 * The message events after the session's snapshot (what a run's context is built from). The log
 * is append-only and its events never change, so an agent that ran the session before reads only
 * the events appended since — from any process — instead of the whole history since the last
 * compaction. The remembered part is used only while the snapshot is the same and its last event
 * is still stored at the same seq; otherwise everything is read again. Returned events are frozen
 * and shared between runs.
 *
 * @example
 * const events = await readSessionMessages(cache, { scope: storage, key: path }, store, await store.head());
 */
export async function readSessionMessages(
  cache: SessionMessagesCache,
  identity: SessionIdentity | undefined,
  store: SessionStore,
  head: SessionHead,
): Promise<readonly SessionEvent[]> {
  const fromSeq = head.snapshot?.atSeq ?? 0;
  let sessions = identity ? cache.get(identity.scope) : undefined;
  if (identity && !sessions) {
    sessions = new Map();
    cache.set(identity.scope, sessions);
  }
  const kept = identity ? sessions!.get(identity.key) : undefined;
  if (kept) sessions!.delete(identity!.key);
  let events: readonly SessionEvent[];
  if (kept && kept.fromSeq === fromSeq && head.lastSeq >= kept.throughSeq && (await stillStored(store, kept))) {
    // Read from the last remembered message on: what follows it is read from this file, so a
    // session file replaced by a copy that shares that message reads its own continuation.
    const fresh = await store.readAfter(kept.throughSeq, { types: [...MESSAGE_TYPES] });
    events = fresh.length === 0 ? kept.events : [...kept.events, ...fresh.map(deepFreeze)];
  } else {
    events = (await store.readAfter(fromSeq, { types: [...MESSAGE_TYPES] })).map(deepFreeze);
  }
  if (identity) {
    const last = events.at(-1);
    if (last) sessions!.set(identity.key, { fromSeq, throughSeq: last.seq, events });
    for (const oldest of sessions!.keys()) {
      if (sessions!.size <= SESSIONS_PER_SCOPE) break;
      sessions!.delete(oldest);
    }
  }
  return events;
}
