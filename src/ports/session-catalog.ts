import type { SessionAddress } from "./session-store.js";

/** One session a {@link SessionCatalog} lists. */
export interface SessionCatalogEntry {
  /** The session, as its store was opened (project, conversation, session key). */
  address: SessionAddress;
  /** When the session was last written (ms since epoch), as well as the backend knows it cheaply. */
  updatedAt: number;
  /**
   * A fork's pointer (FORK-1), as the backend keeps it beside the log (the SQLite file's meta row,
   * PostgreSQL's `agent_sessions` row): its parent and the last parent seq it holds. Absent for a
   * session that is no fork, and for a catalog that does not know.
   */
  forkOf?: { address: SessionAddress; atSeq: number };
}

/**
 * Which sessions a session backend holds, for tools that browse them (the run viewer, VIEW-1).
 * A backend's log port has no listing of its own: a catalog answers from what the backend keeps
 * beside the logs — the SQLite backend's session folders and each file's meta row, a database
 * backend's index rows — never by reading the logs.
 *
 * Contract:
 * - `list` costs what the catalog returns (folders, files or rows), not the length of any log.
 * - Entries are newest first (`updatedAt` descending); an address appears once.
 * - A session being written while listing may or may not appear; it never fails the listing.
 * - A session whose address cannot be read (a damaged file) is left out, not thrown.
 * - Faults of the catalog itself reject with `storage_failure`; after `close()` with `unavailable`.
 */
export interface SessionCatalog {
  /** Every session, newest first; `projectId` narrows to one project. */
  list(filter?: { projectId?: string }): Promise<SessionCatalogEntry[]>;
  /** Releases handles. Idempotent. */
  close(): Promise<void>;
}
