import type { JsonValue } from "../domain/json.js";
import type { Clock } from "./clock.js";
import type { SessionEvent, SessionEventInput, SessionEventType } from "../domain/agent/session-events.js";

export type { SessionEvent, SessionEventInput, SessionEventType } from "../domain/agent/session-events.js";

/** Where a session lives: one log per (project, conversation, session key) (SES-1). */
export interface SessionAddress {
  projectId: string;
  /** Absent for runs outside a conversation. */
  conversationId?: string;
  sessionKey: string;
}

/** The outcome of {@link SessionStore.append}. */
export interface SessionAppendResult {
  /** The events as stored, in input order; for ids already present, the earlier stored event. */
  events: SessionEvent[];
  /** How many of the given events were new. */
  appended: number;
}

/**
 * A compact state of the session up to `atSeq` (for example the transcript after a compaction),
 * so that resuming reads the snapshot plus the events after it instead of the whole history.
 */
export interface SessionSnapshot {
  atSeq: number;
  state: JsonValue;
}

/** The cheap "where is the session now" read of {@link SessionStore.head}. */
export interface SessionHead {
  /** The `seq` of the last event, 0 for an empty session. */
  lastSeq: number;
  /** The latest snapshot, or `null` when none was written. */
  snapshot: SessionSnapshot | null;
  /** The id of the last run that appended a `run_started` event, or `null`. */
  lastRunId: string | null;
}

/** Options of {@link SessionStore.readAfter}. */
export interface SessionReadOptions {
  /** Only events of these types. */
  types?: readonly SessionEventType[];
  /** At most this many events (default: all). */
  limit?: number;
  /**
   * Newest first: with `limit`, the last `limit` matching events after `afterSeq`, in descending
   * seq order. Reading the end of a long log this way costs what it returns, not the log's length.
   */
  newestFirst?: boolean;
}

/**
 * The durable session store port: one append-only event log per session (SES-1, SES-3). The
 * agent writes messages, tool intents and results, approval waits and decisions, and usage as
 * events; a run is replayed from its events.
 *
 * Contract:
 * - `seq` starts at 1 and increases by 1 per stored event, in append order, never reused.
 * - Appends are idempotent by `eventId`: an id already stored is skipped (the stored event is
 *   returned; it is not compared or overwritten), so a resumed run re-appending the same step
 *   changes nothing. Ids are unique per session, not per run.
 * - One `append` call is atomic: after a crash either all its new events are stored or none.
 * - Events are never updated or deleted; compaction writes a snapshot, it never rewrites events.
 * - Reads return deep copies; mutating them never changes the store.
 * - Adapter faults reject with `storage_failure` (`cause` kept); a store that cannot write never
 *   pretends it did (SES-5). Calls after `close()` reject with `unavailable`.
 */
export interface SessionStore {
  /** The session this store holds. */
  readonly address: SessionAddress;
  /**
   * Appends events in order, atomically, skipping ids already stored. Rejects with
   * `input_validation` for an event without `eventId`, `runId` or `type`, or with a
   * payload that is not JSON; nothing is written then.
   */
  append(events: readonly SessionEventInput[]): Promise<SessionAppendResult>;
  /** The events of one run in `seq` order; `[]` for an unknown run. */
  readRun(runId: string): Promise<SessionEvent[]>;
  /** The events with `seq > afterSeq` in `seq` order, optionally filtered and limited. */
  readAfter(afterSeq: number, options?: SessionReadOptions): Promise<SessionEvent[]>;
  /** The stored event with this id, or `null`. */
  get(eventId: string): Promise<SessionEvent | null>;
  /** Last seq, latest snapshot and last run id, without reading the log. */
  head(): Promise<SessionHead>;
  /**
   * Stores a snapshot; only the one with the highest `atSeq` is kept. Rejects with
   * `input_validation` when `atSeq` is beyond the last event or below the kept snapshot.
   */
  putSnapshot(snapshot: SessionSnapshot): Promise<void>;
  /** Releases handles. Idempotent. */
  close(): Promise<void>;
}

/** What a run asks of {@link SessionStoreOpener.open}. */
export interface SessionOpenRequest {
  /** The session. */
  address: SessionAddress;
  /** An explicit session database (a node's `databasePath`); else the address decides the file. */
  databasePath?: string;
  /** Who takes the session's lease (a run id), for diagnostics; non-empty. */
  ownerId: string;
  /** Timestamps of the events this owner appends; the system clock by default. */
  clock?: Clock;
}

/**
 * Opens durable sessions for runs (SES-1, SES-2), offered by a storage that keeps sessions
 * (`Storage.sessions`). Contract:
 * - `open` resolves a store held under the session's lease: no other owner — in this process or
 *   another — can open the session until the store is closed. A held session rejects with
 *   `session_busy` at once (no waiting); a file that cannot be used with `storage_failure`.
 * - Closing the store releases the lease; calls on it afterwards reject with `unavailable`.
 * - The store reads what other owners wrote before this lease began.
 * - An opener may keep files open between leases (a warm session costs no reopen); the storage's
 *   `close()` closes them.
 */
export interface SessionStoreOpener {
  /** The session's store under its lease; see the contract above. */
  open(request: SessionOpenRequest): Promise<SessionStore>;
}
