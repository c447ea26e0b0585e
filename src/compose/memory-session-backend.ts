import { SteamharnessError } from "../domain/errors.js";
import { canonicalJson } from "../domain/stable-hash.js";
import type { SessionBackend } from "../ports/session-backend.js";
import type { Clock } from "../ports/clock.js";
import type { SessionAddress } from "../ports/session-store.js";
import type { OwnSessionStore } from "../adapters/driven/kernel/session-store.js";
import { createSessionBackend } from "../adapters/driven/kernel/session-backend.js";
import { createMemorySessionHostRecord, createMemorySessionHostStore, type MemorySessionHostRecord } from "../adapters/driven/sqlite/memory/memory-stores.js";
import { createMemorySessionLeaseProvider } from "../adapters/driven/memory/memory-session-lease.js";
import { createMemorySessionStore } from "../adapters/driven/memory/memory-session-store.js";

const addressKey = (address: SessionAddress): string => canonicalJson({ projectId: address.projectId, conversationId: address.conversationId ?? null, sessionKey: address.sessionKey });

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
 * `MemoryStorage.sessions`, a composition (ARCH-8): session logs in the memory family's rows, host
 * records the SQLite ones on in-memory databases. Session logs, leases and host records live as long as the backend
 * object, so re-running a run id on the same storage replays it (SES-3, SES-6); one owner per
 * session within the process (SES-2).
 *
 * @example
 * const sessions = createMemorySessionBackend();
 * const store = await sessions.open({ address: { projectId: "p", conversationId: "c", sessionKey: "agent" }, ownerId: "run-1" });
 * await store.close(); // releases the lease; the log stays
 */
export function createMemorySessionBackend(options: MemorySessionBackendOptions = {}): SessionBackend {
  const logs = new Map<string, OwnSessionStore>();
  const hosts = new Map<string, MemorySessionHostRecord>();
  const leases = createMemorySessionLeaseProvider();
  // The log outlives its handles: it is made once per address (with the first opener's clock) and never closed.
  const log = (address: SessionAddress, clock: Clock | undefined): OwnSessionStore => {
    const key = addressKey(address);
    if (!logs.has(key)) logs.set(key, createMemorySessionStore({ address: { ...address }, ...(clock ? { clock } : {}), ...(options.events ? { events: options.events } : {}) }));
    return logs.get(key)!;
  };
  return createSessionBackend(
    {
      kind: "memory",
      durable: false,
      leases,
      // The log stays when the run's handle closes.
      hold: async (request) => ({ store: { ...log(request.address, request.clock), close: async () => {} } }),
      async unleased(request) {
        if (!request.create && !logs.has(addressKey(request.address))) return null;
        return { ...log(request.address, request.clock), close: async () => {} };
      },
      async hostStore(conversationId, create) {
        if (!hosts.has(conversationId) && create) hosts.set(conversationId, createMemorySessionHostRecord());
        const record = hosts.get(conversationId);
        return record ? createMemorySessionHostStore(record) : null;
      },
      async forkLog({ from, to, throughSeq, append = [], lastRunId }) {
        if (!logs.has(addressKey(from))) throw new SteamharnessError("not_found", "[steamharness] [memory] the session to fork does not exist", { field: "from" });
        if (logs.has(addressKey(to))) throw new SteamharnessError("conflict", "[steamharness] [memory] the fork's session exists already", { field: "to" });
        const fork = createMemorySessionStore({ address: { ...to }, base: { address: { ...from }, seq: throughSeq }, lastRunId, ...(options.events ? { events: options.events } : {}) });
        // Synchronous up to here since the check: nothing else can take the address meanwhile.
        logs.set(addressKey(to), fork);
        if (append.length > 0) await fork.append(append);
      },
      close: async () => {},
    },
  );
}
