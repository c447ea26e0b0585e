import type { Clock } from "./clock.js";
import type { SessionLeaseProvider } from "./session-lease.js";
import type { AgentSessionHostStore } from "./session-host-store.js";
import type { SessionAddress, SessionEventInput, SessionStore, SessionStoreOpener } from "./session-store.js";

/** What {@link SessionBackend.openUnleased} opens. */
export interface SessionUnleasedRequest {
  /** The session. */
  address: SessionAddress;
  /** An explicit session location (a node's `databasePath`); see {@link SessionBackend.acceptsDatabasePath}. */
  databasePath?: string;
  /** Timestamps of the events appended through this store; the system clock by default. */
  clock?: Clock;
  /**
   * `false`: resolve `null` for a session that was never written, and create nothing (a read of
   * history never leaves an empty session behind). `true`: create it when missing.
   */
  create: boolean;
}

/** What {@link SessionBackend.forkLog} makes (FORK-1). */
export interface SessionForkRequest {
  /** The session whose prefix the new one reads through to; it must exist. */
  from: SessionAddress;
  /** The new session; it must not exist yet. */
  to: SessionAddress;
  /** The last seq of `from` the new session holds: an integer from 0 to `from`'s last seq. */
  throughSeq: number;
  /** Events appended after the prefix in the same transaction (a fork's record), stamped with the fork's time. */
  append?: readonly SessionEventInput[];
}

/**
 * Where a storage keeps durable agent sessions (SES-1, SES-2, HOST-1): the session logs, their
 * leases and each conversation's session-host record. `Storage.sessions` carries one; it is the
 * only switch for durability — a storage whose backend is `durable` keeps conversation sessions
 * across processes, an in-memory one keeps them as long as the storage object.
 *
 * Contract (`runSessionBackendContract` in `steamharness/testing` checks it):
 * - `open` is the {@link SessionStoreOpener} contract: the store is held under the session's lease
 *   (`session_busy` at once when another owner holds it, in this process or — for a durable
 *   backend — any other process or machine sharing the backend); closing the store releases it.
 * - `leases` grant the same leases `open` takes: a lease held through `leases.acquire(address)`
 *   makes `open(address)` busy and the other way round.
 * - `openUnleased` gives the session's store without taking its lease: for reading (history,
 *   viewers) while a run may hold it, and for a holder of the lease taken through `leases` (the
 *   session host). It never creates anything when `create` is `false`.
 * - `openHostStore` gives a conversation's host record (the {@link AgentSessionHostStore}
 *   contract); `null` without `create` for a conversation that has none. Any process may open it
 *   while a host elsewhere holds the session.
 * - Faults reject with `storage_failure` (cause kept); after `close()` calls reject with
 *   `unavailable`.
 */
export interface SessionBackend extends SessionStoreOpener {
  /** A name for diagnostics and for choosing: `"memory"`, `"sqlite"`, `"postgres"` or a host's own. */
  readonly kind: string;
  /** True when sessions outlive the process (and are shared with other processes using the same backend). */
  readonly durable: boolean;
  /**
   * Whether `databasePath` in a request names a session location this backend understands (the
   * SQLite backend: a session file). Other backends reject such requests with `input_validation`;
   * the agent then opens that file with a SQLite backend of its own.
   */
  readonly acceptsDatabasePath: boolean;
  /** The leases `open` takes, for holders that keep a session between runs (the session host). */
  readonly leases: SessionLeaseProvider;
  /** The session's store without its lease; `null` when it does not exist and `create` is false. */
  openUnleased(request: SessionUnleasedRequest): Promise<SessionStore | null>;
  /** The conversation's session-host record; `null` when it has none and `create` is false. */
  openHostStore(conversationId: string, options: { create: boolean }): Promise<AgentSessionHostStore | null>;
  /**
   * Creates session `to` whose log reads as `from`'s events 1..`throughSeq` exactly (same seq,
   * ids, runs, types, payloads and write times; its head's `lastRunId` is the last run started
   * among them; no snapshot), then the `append` events (FORK-1, a fork's prefix). The prefix is
   * not copied: `to` keeps a pointer to `from` and the seq, and its store reads events up to that
   * seq from `from` (and on through `from`'s own parent, for a fork of a fork) by seq, run or id
   * — index lookups, no scans — so the cost does not grow with the history. Appends to `to` skip
   * ids its prefix holds, like any stored id. `from` stays a plain session: it may be held and
   * appended to meanwhile (the prefix is immutable); its log must be kept while `to` exists
   * (opening `to` rejects with `storage_failure` once it is gone). It never takes a lease.
   * Rejects with `not_found` when `from` does not exist, `input_validation` (field `throughSeq`)
   * when the seq is not an integer within `from`'s log, `conflict` when `to` exists,
   * `input_validation` for an `append` event the store would refuse; nothing is written then.
   * Optional: a backend without it cannot fork.
   */
  forkLog?(request: SessionForkRequest): Promise<void>;
  /** Releases what the backend keeps open (idle sessions, connections). Idempotent. */
  close(): Promise<void>;
}
