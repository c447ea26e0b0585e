import { SteamharnessError } from "../../domain/errors.js";
import { canonicalJson } from "../../domain/stable-hash.js";
import type { SessionLease, SessionLeaseAcquireOptions, SessionLeaseProvider, SessionLeaseTarget } from "../../ports/session-lease.js";

/**
 * Checks the parts of an acquire call every lease provider validates the same way and returns
 * whether the target is an explicit database path. Throws `input_validation`.
 *
 * @example
 * checkLeaseRequest({ databasePath: "/s.sqlite" }, { ownerId: "run-1" }) // true
 */
export function checkLeaseRequest(target: SessionLeaseTarget, options: SessionLeaseAcquireOptions): target is { databasePath: string } {
  if (typeof options?.ownerId !== "string" || options.ownerId === "") {
    throw new SteamharnessError("input_validation", "a session lease needs a non-empty ownerId", { field: "ownerId" });
  }
  if (typeof target === "object" && target !== null && "databasePath" in target) {
    if (typeof target.databasePath !== "string" || target.databasePath === "") {
      throw new SteamharnessError("input_validation", "databasePath must be a non-empty string", { field: "databasePath" });
    }
    return true;
  }
  if (typeof target !== "object" || target === null || typeof target.sessionKey !== "string") {
    throw new SteamharnessError("input_validation", "a session lease target needs a sessionKey or a databasePath", { field: "sessionKey" });
  }
  return false;
}

/**
 * The error of a refused acquire with `onBusy: "throw"`.
 *
 * @example
 * throw sessionBusy("/s.sqlite.lock");
 */
export function sessionBusy(key: string): SteamharnessError {
  return new SteamharnessError("session_busy", `[steamharness] session ${key} is being executed by another owner`, { data: { key } });
}

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
