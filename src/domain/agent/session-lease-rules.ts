/**
 * The rules every session-lease provider applies the same way (SES-2): what an acquire call must
 * name, and the error of a session held by another owner.
 */
import { SteamharnessError } from "../errors.js";
import type { SessionLeaseAcquireOptions, SessionLeaseTarget } from "../../ports/session-lease.js";

/**
 * Checks the parts of an acquire call every lease provider validates the same way and returns
 * whether the target is an explicit database path. Throws `input_validation`.
 *
 * @example
 * checkLeaseRequest({ databasePath: "/data/s1" }, { ownerId: "run-1" }) // true
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
 * throw sessionBusy("conv-1/agent");
 */
export function sessionBusy(key: string): SteamharnessError {
  return new SteamharnessError("session_busy", `[steamharness] session ${key} is being executed by another owner`, { data: { key } });
}
