/**
 * Helpers shared by the SQLite adapters: busy retries, error wrapping and the kernel's
 * {@link StoreCall} of the SQLite stores. (The UTF-16BE sort keys live in the store kernel.)
 */
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { StoreCall } from "../../kernel/store-call.js";

const BUSY_DEADLINE_MS = 60_000;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * True for SQLite's "another connection holds the lock" errors (BUSY, BUSY_SNAPSHOT, LOCKED…).
 *
 * @example
 * if (isBusyError(error)) retryLater();
 */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/**
 * The kernel's call for the SQLite stores: `storage_failure` once closed (not better-sqlite3's
 * TypeError); a step is retried while SQLite reports the database busy (after `busy_timeout`
 * already waited, or at once for BUSY_SNAPSHOT), so `SQLITE_BUSY` never reaches callers unless
 * another process holds the lock for a whole minute. Other faults are wrapped as
 * `storage_failure` with `cause`; steamharness errors pass through. Steps are synchronous
 * (better-sqlite3), so a retried step reruns its whole transaction.
 *
 * @example
 * const kv = createKvStore(sqlKvRows(driver), sqliteCall(state));
 */
export function sqliteCall(state: { closed: boolean }): StoreCall {
  return async (what, step) => {
    if (state.closed) throw new SteamharnessError("storage_failure", "[steamharness] [sqlite] the store is closed");
    const deadline = Date.now() + BUSY_DEADLINE_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return step();
      } catch (error) {
        if (!isBusyError(error) || Date.now() > deadline) throw wrapAdapterError("sqlite", `${what} failed`, error);
        // Synchronous back-off: better-sqlite3 is synchronous anyway, and busy_timeout blocks likewise.
        Atomics.wait(sleepCell, 0, 0, Math.min(50, 1 + attempt * 2) + Math.random() * 5);
      }
    }
  };
}
