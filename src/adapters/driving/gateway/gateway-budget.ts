/**
 * What a conversation of the gateway holds, in bytes (SEC-7): the gateway keeps every
 * conversation's session log and stored responses in memory, so it counts them and evicts the
 * least recently used conversations when all of them together pass the budget. Sizes are the
 * approximate serialized size (JSON text length) of what is kept, counted as it is written.
 */
import type { SessionBackend, SessionForkRequest } from "../../../ports/session-backend.js";
import type { SessionAddress, SessionStore } from "../../../ports/session-store.js";

/** The default byte budget of all kept conversations together: 256 MiB. */
export const DEFAULT_MAX_HELD_BYTES = 256 * 1024 * 1024;

/**
 * The approximate size of a JSON value as JSON text (string lengths, digits, punctuation),
 * walked without recursion so no nesting depth overflows the stack.
 *
 * @example
 * approximateBytes({ text: "hello" }); // 16
 */
export function approximateBytes(value: unknown): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") bytes += item.length + 2;
    else if (typeof item === "number") bytes += 8;
    else if (Array.isArray(item)) {
      bytes += 2 + item.length;
      for (const inner of item) pending.push(inner);
    } else if (item !== null && typeof item === "object") {
      bytes += 2;
      for (const key in item) {
        bytes += key.length + 4;
        pending.push((item as Record<string, unknown>)[key]);
      }
    } else bytes += 5; // true, false, null
  }
  return bytes;
}

const addressKey = (address: SessionAddress): string => JSON.stringify([address.projectId, address.conversationId ?? null, address.sessionKey]);

/**
 * Wraps a session backend so that every event it stores and its current snapshot are counted:
 * `onBytes(delta)` after each write that changes what is kept. Events re-appended under a known
 * id (a resumed run) are not counted again.
 *
 * @example
 * const sessions = measuredSessions(createMemorySessionBackend(), (delta) => (held += delta));
 */
export function measuredSessions(backend: SessionBackend, onBytes: (delta: number) => void): SessionBackend {
  const counted = new Map<string, { throughSeq: number; snapshot: number }>();
  const measured = (store: SessionStore): SessionStore => {
    const key = addressKey(store.address);
    const entry = counted.get(key) ?? { throughSeq: 0, snapshot: 0 };
    counted.set(key, entry);
    return {
      address: store.address,
      readRun: (runId) => store.readRun(runId),
      readAfter: (afterSeq, options) => store.readAfter(afterSeq, options),
      get: (eventId) => store.get(eventId),
      head: () => store.head(),
      close: () => store.close(),
      async append(events) {
        const result = await store.append(events);
        let added = 0;
        for (const event of result.events) {
          if (event.seq <= entry.throughSeq) continue;
          added += approximateBytes(event);
          entry.throughSeq = event.seq;
        }
        if (added > 0) onBytes(added);
        return result;
      },
      async putSnapshot(snapshot) {
        await store.putSnapshot(snapshot);
        const size = approximateBytes(snapshot);
        const delta = size - entry.snapshot;
        entry.snapshot = size;
        if (delta !== 0) onBytes(delta);
      },
    };
  };
  return {
    kind: backend.kind,
    durable: backend.durable,
    acceptsDatabasePath: backend.acceptsDatabasePath,
    leases: backend.leases,
    open: async (request) => measured(await backend.open(request)),
    async openUnleased(request) {
      const store = await backend.openUnleased(request);
      return store && measured(store);
    },
    openHostStore: (conversationId, options) => backend.openHostStore(conversationId, options),
    // A fork holds only what it appends (its prefix is read through to the parent, FORK-1): those events count, the prefix never does.
    ...(backend.forkLog
      ? {
          async forkLog(request: SessionForkRequest) {
            await backend.forkLog!(request);
            const append = request.append ?? [];
            counted.set(addressKey(request.to), { throughSeq: request.throughSeq + append.length, snapshot: 0 });
            const added = append.reduce((sum, event) => sum + approximateBytes({ ...event, seq: 0, at: 0 }), 0);
            if (added > 0) onBytes(added);
          },
        }
      : {}),
    close: () => backend.close(),
  };
}
