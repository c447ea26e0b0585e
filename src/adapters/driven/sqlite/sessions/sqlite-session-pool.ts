import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { SessionOpenRequest, SessionStore, SessionStoreOpener } from "../../../../ports/session-store.js";
import { resolveSessionDatabasePath } from "./session-database-path.js";
import { createSqliteSessionStore } from "./sqlite-session-store.js";
import { storeHandle, type HeldSession, type SessionBackendDriver } from "../../kernel/session-backend.js";
import { sqliteSessionLeases } from "./sqlite-session-lease.js";
import { fileIdOf } from "../shared/sqlite-connection.js";

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

/** A store shared by the handles this process holds on its file. */
interface Shared {
  store: { close(): Promise<void> };
  handles: number;
  /** The file's identity when opened: a file replaced or removed since is opened again. */
  fileId: string | null;
}

/**
 * Opens stores so that the handles a process holds on one file share one connection. Why (issue 45
 * item 1): a chat's host and the chat's readers open the same host record and session log; each
 * extra connection costs an open on the way in and, when it is the last, a WAL checkpoint with its
 * syncs on the way out. Of the files no handle holds, the `keepIdle` used last stay open for their
 * next handle (the session pool's warm sessions), the others close; so does a file whose handle
 * saw a call fail, once unused (the next handle opens it afresh). A closed handle rejects with
 * `unavailable`, as a store of its own would; `closeAll()` closes every file, held or not.
 *
 * @example
 * const shared = sharedOpens();
 * const store = shared(path, () => openSqliteSessionHostStore({ path }));
 */
export function sharedOpens(keepIdle = 0) {
  /** Least recently used first. */
  const open = new Map<string, Shared>();
  // A store's close only closes its connection; a failure there leaves nothing to undo.
  const dispose = (entry: Shared) => entry.store.close().catch(() => undefined);
  const share = <T extends { close(): Promise<void> }>(path: string, make: () => T): T => {
    let entry = open.get(path);
    open.delete(path);
    if (entry && entry.fileId !== fileIdOf(path)) {
      if (entry.handles === 0) void dispose(entry);
      entry = undefined;
    }
    const held = entry ?? { store: make(), handles: 0, fileId: fileIdOf(path) };
    open.set(path, held);
    held.handles++;
    return storeHandle(held.store as T, async (faulted) => {
      held.handles--;
      if (faulted && open.get(path) === held) open.delete(path);
      const idle = [...open.values()].filter((kept) => kept.handles === 0);
      const gone = [...(held.handles === 0 && open.get(path) !== held ? [held] : []), ...idle.slice(0, Math.max(0, idle.length - keepIdle))];
      for (const [key, kept] of open) if (gone.includes(kept)) open.delete(key);
      await Promise.all(gone.map(dispose));
    }, "sqlite");
  };
  return Object.assign(share, {
    closeAll() {
      for (const entry of open.values()) void dispose(entry);
      open.clear();
    },
  });
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
  const kept = sharedOpens(maxIdle);
  /** The clock of each held session's run; its kept store stamps appends with it. */
  const clocks = new Map<string, Clock | undefined>();
  let closed = false;
  const hold = async (request: SessionOpenRequest): Promise<HeldSession> => {
    if (closed) throw new SteamharnessError("unavailable", "[steamharness] [sqlite] the storage is closed");
    const lease = (await leases.acquire(request.databasePath === undefined ? request.address : { databasePath: request.databasePath }, { ownerId: request.ownerId, onBusy: "throw" }))!;
    const path = resolveSessionDatabasePath({ ...request.address, agentStoreDir: options.agentStoreDir, databasePath: request.databasePath });
    let store: SessionStore;
    try {
      store = kept(path, () => createSqliteSessionStore({ path, address: request.address, clock: { now: () => (clocks.get(path) ?? systemClock).now() } }));
    } catch (error) {
      await lease.release().catch(() => undefined);
      throw wrapAdapterError("sqlite", `cannot open the session ${path}`, error);
    }
    clocks.set(path, request.clock);
    // Releasing gives the lease up and keeps the store (and the lock's connection) for the next run, unless a call failed.
    const release = async () => {
      clocks.delete(path);
      try {
        await lease.release();
      } finally {
        await store.close();
      }
    };
    return { store: { ...store, address: structuredClone(request.address) }, release };
  };
  return {
    hold,
    leases,
    open: async (request) => (({ store, release }) => storeHandle(store, release, "sqlite"))(await hold(request)),
    async close() {
      if (closed) return;
      closed = true;
      // A session still held loses its store and its lease.
      kept.closeAll();
      await leases.close();
    },
  };
}
