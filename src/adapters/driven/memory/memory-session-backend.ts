import { SteamharnessError } from "../../../domain/errors.js";
import { canonicalJson } from "../../../domain/stable-hash.js";
import type { SessionBackend } from "../../../ports/session-backend.js";
import type { SessionAddress, SessionStore } from "../../../ports/session-store.js";
import { createMemorySessionHostRecord, createMemorySessionHostStore, type MemorySessionHostRecord } from "./memory-session-host-store.js";
import { createMemorySessionLeaseProvider } from "./memory-session-lease.js";
import { createMemorySessionStore } from "./memory-session-store.js";

const addressKey = (address: SessionAddress): string => canonicalJson({ projectId: address.projectId, conversationId: address.conversationId ?? null, sessionKey: address.sessionKey });

const noDatabasePath = (databasePath: string | undefined): void => {
  if (databasePath !== undefined) {
    throw new SteamharnessError("input_validation", "the in-memory session backend has no session files: databasePath needs a SQLite backend", { field: "databasePath" });
  }
};

/** Options of {@link createMemorySessionBackend}. */
export interface MemorySessionBackendOptions {
  /**
   * How each session's events are kept: `"json"` (default) as JSON text rows, the reference
   * store; `"objects"` as copies of their objects that share their strings, so one large prompt
   * named by several events is held once (SEC-7, the gateway's conversations). Both keep the
   * session-store contract.
   */
  events?: "json" | "objects";
}

/**
 * The in-memory session backend: the reference adapter of the session-backend port and
 * `MemoryStorage.sessions`. Session logs, leases and host records live as long as the backend
 * object, so re-running a run id on the same storage replays it (SES-3, SES-6); one owner per
 * session within the process (SES-2).
 *
 * @example
 * const sessions = createMemorySessionBackend();
 * const store = await sessions.open({ address: { projectId: "p", conversationId: "c", sessionKey: "agent" }, ownerId: "run-1" });
 * await store.close(); // releases the lease; the log stays
 */
export function createMemorySessionBackend(options: MemorySessionBackendOptions = {}): SessionBackend {
  const createStore = (address: SessionAddress, clock?: { now(): number }) => createMemorySessionStore({ address, ...(clock ? { clock } : {}), ...(options.events ? { events: options.events } : {}) });
  const logs = new Map<string, SessionStore>();
  const hosts = new Map<string, MemorySessionHostRecord>();
  const leases = createMemorySessionLeaseProvider();
  let closed = false;
  const check = (): void => {
    if (closed) throw new SteamharnessError("unavailable", "the session backend is closed");
  };
  const log = (address: SessionAddress, clock: { now(): number } | undefined): SessionStore => {
    const key = addressKey(address);
    let store = logs.get(key);
    if (!store) {
      store = createStore({ ...address }, clock);
      logs.set(key, store);
    }
    return store;
  };
  return {
    kind: "memory",
    durable: false,
    acceptsDatabasePath: false,
    leases,
    async open(request) {
      check();
      noDatabasePath(request.databasePath);
      const lease = await leases.acquire(request.address, { ownerId: request.ownerId, onBusy: "throw" });
      const store = log(request.address, request.clock);
      let released = false;
      // The log outlives the lease: closing gives the session up, and this handle with it.
      const guard = <A extends unknown[], R>(call: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
        if (released) throw new SteamharnessError("unavailable", "the session store is closed");
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
      check();
      noDatabasePath(request.databasePath);
      if (!request.create && !logs.has(addressKey(request.address))) return null;
      const store = log(request.address, request.clock);
      return { ...store, address: store.address, close: async () => {} };
    },
    async openHostStore(conversationId, options) {
      check();
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
