import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { SessionOpenRequest, SessionStore, SessionStoreOpener } from "../../../../ports/session-store.js";
import type { SessionLease } from "../../../../ports/session-lease.js";
import { resolveSessionDatabasePath } from "./session-database-path.js";
import { createSqliteSessionStore } from "./sqlite-session-store.js";
import { storeHandle, type HeldSession, type SessionBackendDriver } from "../../kernel/session-backend.js";
import { fileIdOf, sqliteSessionLeases } from "./sqlite-session-lease.js";

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

/** One session file kept open: its store and who holds it now. */
interface Entry {
  path: string;
  store: SessionStore;
  /** The file's identity when opened: a file replaced or removed since is opened again. */
  fileId: string | null;
  clock: Clock | undefined;
  lease: SessionLease | undefined;
}

const systemClock: Clock = { now: () => Date.now() };

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
export function sqliteSessionPool(options: SqliteSessionPoolOptions): SqliteSessionPool & Pick<SessionBackendDriver, "hold" | "leases"> {
  const maxIdle = Math.max(0, options.maxIdle ?? 8);
  // The lease's lock-file connection is kept beside the store (SES-2: the same lock protocol as any lease provider's).
  const leases = sqliteSessionLeases(options, maxIdle);
  /** Least recently used first. */
  const entries = new Map<string, Entry>();
  let closed = false;
  // The store's close only closes its connection; a failure there leaves nothing to undo.
  const dispose = (entry: Entry) => entry.store.close().catch(() => undefined);
  const evictIdle = () => {
    const idle = [...entries.values()].filter((entry) => !entry.lease);
    while (idle.length > maxIdle) {
      const oldest = idle.shift()!;
      entries.delete(oldest.path);
      void dispose(oldest);
    }
  };

  /** The kept entry of `path` if its file is unchanged; otherwise a newly opened one. */
  const entryFor = (path: string, request: SessionOpenRequest): Entry => {
    const kept = entries.get(path);
    entries.delete(path);
    if (kept && kept.fileId === fileIdOf(path)) return entries.set(path, kept).get(path)!;
    if (kept) void dispose(kept);
    const entry: Entry = { path, store: undefined as unknown as SessionStore, fileId: null, clock: undefined, lease: undefined };
    entry.store = createSqliteSessionStore({ path, address: request.address, clock: { now: () => (entry.clock ?? systemClock).now() } });
    entry.fileId = fileIdOf(path);
    return entries.set(path, entry).get(path)!;
  };

  const hold = async (request: SessionOpenRequest): Promise<HeldSession> => {
    if (closed) throw new SteamharnessError("unavailable", "[steamharness] [sqlite] the storage is closed");
    const lease = (await leases.acquire(request.databasePath === undefined ? request.address : { databasePath: request.databasePath }, { ownerId: request.ownerId, onBusy: "throw" }))!;
    const path = resolveSessionDatabasePath({ ...request.address, agentStoreDir: options.agentStoreDir, databasePath: request.databasePath });
    let entry: Entry;
    try {
      entry = entryFor(path, request);
    } catch (error) {
      await lease.release().catch(() => undefined);
      throw wrapAdapterError("sqlite", `cannot open the session ${path}`, error);
    }
    entry.lease = lease;
    entry.clock = request.clock;
    // Releasing gives the lease up and keeps the store (and the lock's connection) for the next run, unless a call failed.
    const release = async (faulted: boolean) => {
      entry.lease = undefined;
      entry.clock = undefined;
      try {
        await lease.release();
      } catch (error) {
        faulted = true;
        throw error;
      } finally {
        // A store that failed is not kept: the next run opens the file afresh.
        if (faulted || closed) {
          if (entries.get(entry.path) === entry) entries.delete(entry.path);
          void dispose(entry);
        }
        evictIdle();
      }
    };
    return { store: { ...entry.store, address: structuredClone(request.address) }, release };
  };
  return {
    hold,
    leases,
    open: async (request) => (({ store, release }) => storeHandle(store, release, "sqlite"))(await hold(request)),
    async close() {
      if (closed) return;
      closed = true;
      const all = [...entries.values()];
      entries.clear();
      // A session still held loses its store and its lease.
      await Promise.all(all.map((entry) => Promise.all([dispose(entry), entry.lease?.release().catch(() => undefined)])));
      leases.closeIdle();
    },
  };
}
