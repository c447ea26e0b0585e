import type { SessionAddress } from "./session-store.js";

/**
 * What a lease is taken on: a session by its address (the provider maps it to its storage, e.g.
 * the SQLite backend's file in its session folder), or an explicit session database path (a node's
 * `databasePath`). Two targets naming the same session contend for the same lease.
 */
export type SessionLeaseTarget = SessionAddress | { databasePath: string };

/** Options of {@link SessionLeaseProvider.acquire}. */
export interface SessionLeaseAcquireOptions {
  /** Who asks (a run or host id), for diagnostics; non-empty. It grants no re-entry. */
  ownerId: string;
  /** What a busy session gives: `"null"` (default) resolves `null`; `"throw"` rejects with `session_busy`. */
  onBusy?: "null" | "throw";
}

/**
 * The right to execute a session (SES-2), held from a successful `acquire` until `release()` or
 * the end of the owning process.
 */
export interface SessionLease {
  /** The `ownerId` given to `acquire`. */
  readonly ownerId: string;
  /** A stable identity of the leased session within the provider (for logs; e.g. the lock file). */
  readonly key: string;
  /**
   * True from acquisition until `release()`. A live owner never loses its lease to another
   * contender: nothing but `release()` or the death of the owning process ends it.
   */
  isHeld(): boolean;
  /** Gives the session up so another owner may take it. Idempotent; never rejects for a lease already released. */
  release(): Promise<void>;
}

/**
 * Grants at most one execution owner per session at a time, across processes and within one
 * process (SES-2). The JSDoc is the contract; `runSessionLeaseContract` checks it.
 *
 * Contract:
 * - `acquire` never waits for the holder: on a free session it resolves a held lease; on a held
 *   one it resolves `null` (or rejects with `session_busy` when `onBusy: "throw"`). Callers that
 *   want to wait retry.
 * - Exclusive: while a lease is held, every other `acquire` of the same session — from this
 *   provider, another provider instance, or another process sharing the storage — is refused,
 *   even with the same `ownerId` (leases are not re-entrant).
 * - Concurrent `acquire` calls on a free session grant exactly one lease.
 * - Released on `release()` and when the owning process exits or is killed (kill -9 included):
 *   a durable provider needs no heartbeat, pid file or expiry, and a new owner can acquire at
 *   once. The storage (folder, lock files) must stay in place while leases are held.
 * - Different sessions never contend.
 * - `input_validation` for an empty `ownerId` or a target that names no session;
 *   `storage_failure` (cause kept) when the lock storage cannot be used. A failure never
 *   resolves a lease that is not really held.
 */
export interface SessionLeaseProvider {
  /** Takes the session's lease if it is free; see the contract above. */
  acquire(target: SessionLeaseTarget, options: SessionLeaseAcquireOptions): Promise<SessionLease | null>;
}
