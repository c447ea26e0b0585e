import { statSync } from "node:fs";
import type Database from "better-sqlite3";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { SessionOpenRequest, SessionStore, SessionStoreOpener } from "../../../../ports/session-store.js";
import { checkLeaseRequest, sessionBusy } from "../../../../domain/agent/session-lease-rules.js";
import { resolveSessionDatabasePath, sessionLockPath } from "./session-database-path.js";
import { createSqliteSessionStore } from "./sqlite-session-store.js";
import { heldStore, type HeldSession, type SessionBackendDriver } from "../../kernel/session-backend.js";
import { openLockFile, tryLock } from "./sqlite-session-lease.js";

/** Options of {@link createSqliteSessionPool}. */
export interface SqliteSessionPoolOptions {
  /** Where session files live (`storage.agentStoreDir`); needed to open a session by address. */
  agentStoreDir?: string;
  /** How many idle sessions stay open for their next run (default 8); older ones are closed. */
  maxIdle?: number;
}

/** A {@link SessionStoreOpener} that keeps session files open between runs; `close()` closes them. */
export interface SqliteSessionPool extends SessionStoreOpener {
  /** Closes every kept file (a session still held loses its store and its lease). Idempotent. */
  close(): Promise<void>;
}

/** One session file kept open: its store, its lock-file connection and who holds it now. */
interface Entry {
  path: string;
  lockPath: string;
  lock: Database.Database;
  store: SessionStore;
  /** The files' identities when opened: a file replaced or removed since is opened again. */
  fileIds: string;
  clock: Clock | undefined;
  held: boolean;
}

const systemClock: Clock = { now: () => Date.now() };

/** Device and inode of both files, or `null` when one is missing. */
function fileIds(path: string, lockPath: string): string | null {
  try {
    const data = statSync(path);
    const lock = statSync(lockPath);
    return `${data.dev}:${data.ino}/${lock.dev}:${lock.ino}`;
  } catch {
    return null;
  }
}

function dispose(entry: Entry): void {
  // The store's close only closes its connection; a failure there leaves nothing to undo.
  entry.store.close().catch(() => undefined);
  // Closing the lock connection ends its transaction and drops the OS lock.
  entry.lock.close();
}

/**
 * The durable sessions of a SQLite storage (SES-1, SES-2), kept open between runs. A run's
 * `open` takes the session's lease on a lock-file connection the pool keeps (the same lock file
 * and protocol as `createSqliteSessionLeaseProvider`, so both exclude each other, across
 * processes too) and hands out the session store kept from the last run; closing that store
 * releases the lease and keeps both connections for the next run. Why: opening, migrating and
 * closing a WAL database per run cost several times the run's own writes. Nothing is cached above
 * SQLite, so a run reads what other processes appended while the session was idle; a file that
 * was replaced or removed meanwhile is opened again. At most `maxIdle` idle sessions stay open.
 *
 * @example
 * const pool = createSqliteSessionPool({ agentStoreDir });
 * const store = await pool.open({ address: { projectId, conversationId, sessionKey: "agent" }, ownerId: runId });
 * try { await store.append(events); } finally { await store.close(); }
 * await pool.close();
 */
export function createSqliteSessionPool(options: SqliteSessionPoolOptions = {}): SqliteSessionPool {
  return sqliteSessionPool(options);
}

/**
 * {@link createSqliteSessionPool} with `hold`, the driver step the SQLite session backend runs under the kernel.
 *
 * @example
 * const { hold } = sqliteSessionPool({ agentStoreDir });
 */
export function sqliteSessionPool(options: SqliteSessionPoolOptions): SqliteSessionPool & Pick<SessionBackendDriver, "hold"> {
  const maxIdle = Math.max(0, options.maxIdle ?? 8);
  /** Least recently used first. */
  const entries = new Map<string, Entry>();
  let closed = false;

  const evictIdle = () => {
    const idle = [...entries.values()].filter((entry) => !entry.held);
    while (idle.length > maxIdle) {
      const oldest = idle.shift()!;
      entries.delete(oldest.path);
      dispose(oldest);
    }
  };

  /** The kept entry of `path` if its files are unchanged; otherwise a newly opened one. */
  const entryFor = (path: string, request: SessionOpenRequest): Entry => {
    const kept = entries.get(path);
    if (kept) {
      entries.delete(path);
      if (kept.fileIds === fileIds(path, kept.lockPath)) {
        entries.set(path, kept);
        return kept;
      }
      dispose(kept);
    }
    const lockPath = sessionLockPath(path);
    const lock = openLockFile(lockPath);
    const entry: Entry = { path, lockPath, lock, store: undefined as unknown as SessionStore, fileIds: "", clock: undefined, held: false };
    try {
      entry.store = createSqliteSessionStore({ path, address: request.address, clock: { now: () => (entry.clock ?? systemClock).now() } });
    } catch (error) {
      lock.close();
      throw error;
    }
    entry.fileIds = fileIds(path, lockPath) ?? "";
    entries.set(path, entry);
    return entry;
  };

  const hold = async (request: SessionOpenRequest): Promise<HeldSession> => {
    if (closed) throw new SteamharnessError("unavailable", "[steamharness] [sqlite] the storage is closed");
    const explicit = request.databasePath === undefined ? undefined : { databasePath: request.databasePath };
    checkLeaseRequest(explicit ?? request.address, { ownerId: request.ownerId });
    const path = resolveSessionDatabasePath({ ...request.address, agentStoreDir: options.agentStoreDir, databasePath: request.databasePath });
    if (entries.get(path)?.held) throw sessionBusy(sessionLockPath(path));
    let entry: Entry;
    try {
      entry = entryFor(path, request);
    } catch (error) {
      throw wrapAdapterError("sqlite", `cannot open the session ${path}`, error);
    }
    entry.held = true;
    let taken: boolean;
    try {
      taken = tryLock(entry.lock);
    } catch (error) {
      entry.held = false;
      throw wrapAdapterError("sqlite", `cannot take the session lock ${entry.lockPath}`, error);
    }
    if (!taken) {
      entry.held = false;
      evictIdle();
      throw sessionBusy(entry.lockPath);
    }
    entry.clock = request.clock;
    // Releasing rolls the lock back and keeps both connections for the next run, unless a call failed.
    const release = async (faulted: boolean) => {
      entry.held = false;
      entry.clock = undefined;
      try {
        entry.lock.exec("ROLLBACK");
      } catch (error) {
        faulted = true;
        throw wrapAdapterError("sqlite", `releasing the session lock ${entry.lockPath} failed`, error);
      } finally {
        // A store that failed is not kept: the next run opens the file afresh.
        if (faulted || closed) {
          if (entries.get(entry.path) === entry) entries.delete(entry.path);
          dispose(entry);
        }
        evictIdle();
      }
    };
    return { store: { ...entry.store, address: structuredClone(request.address) }, release };
  };
  return {
    hold,
    open: async (request) => heldStore(await hold(request), "sqlite"),
    async close() {
      if (closed) return;
      closed = true;
      const all = [...entries.values()];
      entries.clear();
      for (const entry of all) dispose(entry);
    },
  };
}
