/**
 * Helpers shared by the SQLite adapters: busy retries, error wrapping and the UTF-16BE sort
 * keys that make BLOB comparison follow UTF-16 code-unit order.
 */
import { SteamharnessError, wrapAdapterError } from "../../../domain/errors.js";

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
 * Runs a synchronous database step, retrying while SQLite reports the database busy (after
 * `busy_timeout` already waited, or at once for BUSY_SNAPSHOT), so `SQLITE_BUSY` never reaches
 * callers unless another process holds the lock for a whole minute. Other faults are wrapped as
 * `storage_failure` with `cause`; steamharness errors pass through.
 *
 * @example
 * const row = withSqliteRetry("kv get", () => statement.get(params));
 */
export function withSqliteRetry<T>(what: string, step: () => T): T {
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
}

/**
 * The BLOB sort key of a string: its UTF-16BE bytes.
 *
 * @example
 * sortKey("a"); // <Buffer 00 61>
 */
export function sortKey(text: string): Buffer {
  return Buffer.from(text, "utf16le").swap16();
}

/**
 * The string a {@link sortKey} was made from.
 *
 * @example
 * fromSortKey(sortKey("é")); // "é"
 */
export function fromSortKey(key: Uint8Array): string {
  return Buffer.from(key).swap16().toString("utf16le");
}

/**
 * The BLOB range `[low, high)` of every sort key starting with `prefix`'s; `high` is `null` when
 * the range is unbounded above (empty prefix or all-0xFF bytes).
 *
 * @example
 * prefixRange("a/"); // { low: <00 61 00 2f>, high: <00 61 00 30> }
 */
export function prefixRange(prefix: string): { low: Buffer; high: Buffer | null } {
  const low = sortKey(prefix);
  const high = Buffer.from(low);
  for (let i = high.length - 1; i >= 0; i--) {
    if (high[i] !== 0xff) {
      high[i]++;
      return { low, high: high.subarray(0, i + 1) };
    }
  }
  return { low, high: null };
}

/**
 * Fails with `storage_failure` once the store is closed, instead of better-sqlite3's TypeError.
 *
 * @example
 * assertOpen(state.closed);
 */
export function assertOpen(closed: boolean): void {
  if (closed) throw new SteamharnessError("storage_failure", "[steamharness] [sqlite] the store is closed");
}
