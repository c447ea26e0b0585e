import { checkLeaseRequest, sessionBusy } from "../../../domain/agent/session-lease-rules.js";
import { canonicalJson } from "../../../domain/stable-hash.js";
import type { SessionLease, SessionLeaseAcquireOptions, SessionLeaseProvider, SessionLeaseTarget } from "../../../ports/session-lease.js";

/**
 * The in-memory lease provider: the reference adapter of the session-lease port, for sessions
 * kept in memory (SES-6). Leases are exclusive among the users of one provider object and end
 * with the process.
 *
 * @example
 * const leases = createMemorySessionLeaseProvider();
 * const lease = await leases.acquire({ projectId: "p", sessionKey: "agent" }, { ownerId: "run-1" });
 * await lease?.release();
 */
export function createMemorySessionLeaseProvider(): SessionLeaseProvider {
  const held = new Map<string, string>();
  return {
    async acquire(target, options) {
      const key = checkLeaseRequest(target, options)
        ? `path:${target.databasePath}`
        : canonicalJson({ projectId: target.projectId ?? null, conversationId: target.conversationId ?? null, sessionKey: target.sessionKey });
      if (held.has(key)) {
        if (options.onBusy === "throw") throw sessionBusy(key);
        return null;
      }
      held.set(key, options.ownerId);
      let released = false;
      const lease: SessionLease = {
        ownerId: options.ownerId,
        key,
        isHeld: () => !released,
        async release() {
          if (released) return;
          released = true;
          held.delete(key);
        },
      };
      return lease;
    },
  };
}
