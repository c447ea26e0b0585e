import type { SessionEvent } from "../../domain/agent/session-events.js";
import type { SessionHead, SessionStore } from "../../ports/session-store.js";

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
  /** Every message event up to this seq is in `events` (the log was read, or appended by the agent, this far). */
  throughSeq: number;
  /** The event stored at `throughSeq`, checked before the remembered part is used. */
  anchor: { eventId: string; seq: number } | null;
  events: readonly SessionEvent[];
}

const isMessage = (event: SessionEvent): boolean => (MESSAGE_TYPES as readonly string[]).includes(event.type);

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

/** True when the remembered anchor event is still stored at its seq (the file was not replaced). */
async function stillStored(store: SessionStore, kept: CachedMessages): Promise<boolean> {
  if (!kept.anchor) return false;
  return (await store.get(kept.anchor.eventId))?.seq === kept.anchor.seq;
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
  /** What to remember: the messages, through which seq, anchored at which event. */
  const upTo = (events: readonly SessionEvent[]): CachedMessages | null => {
    const last = events.at(-1);
    if (last) return { fromSeq, throughSeq: last.seq, anchor: { eventId: last.eventId, seq: last.seq }, events };
    // Nothing after the snapshot yet: remembered without an anchor, for the run to append to.
    return head.lastSeq === fromSeq ? { fromSeq, throughSeq: fromSeq, anchor: null, events } : null;
  };
  let remembered: CachedMessages | null;
  if (kept && kept.fromSeq === fromSeq && head.lastSeq >= kept.throughSeq && (await stillStored(store, kept))) {
    // Read what follows the remembered part, from this file: a session file replaced by a copy
    // that shares the anchor event reads its own continuation. Nothing appended since (the head
    // is where the agent left it): nothing to read.
    const fresh = head.lastSeq === kept.throughSeq ? [] : await store.readAfter(kept.throughSeq, { types: [...MESSAGE_TYPES] });
    remembered = fresh.length === 0 ? kept : upTo([...kept.events, ...fresh.map(deepFreeze)]);
  } else {
    remembered = upTo((await store.readAfter(fromSeq, { types: [...MESSAGE_TYPES] })).map(deepFreeze));
  }
  const events = remembered?.events ?? [];
  if (identity) {
    if (remembered) sessions!.set(identity.key, remembered);
    for (const oldest of sessions!.keys()) {
      if (sessions!.size <= SESSIONS_PER_SCOPE) break;
      sessions!.delete(oldest);
    }
  }
  return events;
}

/**
 * Adds what a run appended to the remembered messages of its session, so the agent's next run
 * reads nothing it wrote itself. Only when the appended events directly follow the remembered
 * part (no gap: nobody else appended in between); otherwise the session is left as it was, and
 * the next run reads what follows the remembered part.
 *
 * @example
 * rememberAppended(cache, { scope: storage, key: path }, [...turn.committed.values()]);
 */
export function rememberAppended(cache: SessionMessagesCache, identity: SessionIdentity | undefined, appended: Iterable<SessionEvent>): void {
  const kept = identity ? cache.get(identity.scope)?.get(identity.key) : undefined;
  if (!kept) return;
  const fresh = [...appended].filter((event) => event.seq > kept.throughSeq).sort((a, b) => a.seq - b.seq);
  if (fresh.length === 0) return;
  if (fresh.some((event, n) => event.seq !== kept.throughSeq + n + 1)) return;
  // Frozen in place: the run is over and these objects are the ones the store returned to it.
  const messages = fresh.filter(isMessage).map(deepFreeze);
  const last = fresh.at(-1)!;
  cache.get(identity!.scope)!.set(identity!.key, {
    fromSeq: kept.fromSeq,
    throughSeq: last.seq,
    anchor: { eventId: last.eventId, seq: last.seq },
    events: messages.length === 0 ? kept.events : [...kept.events, ...messages],
  });
}
