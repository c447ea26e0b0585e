import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { SessionBackend } from "../../../../ports/session-backend.js";
import type { SessionStore } from "../../../../ports/session-store.js";
import { openSqliteSessionHostStore, sessionHostDatabasePath } from "../session-host/sqlite-session-host-store.js";
import { markForeignFork, resolveSessionDatabasePath } from "./session-database-path.js";
import { poolSeedsUnder } from "../shared/seed-pool.js";
import { createSessionBackend, storeHandle } from "../../kernel/session-backend.js";
import { createSqliteSessionLeaseProvider } from "./sqlite-session-lease.js";
import { fileIdOf } from "../shared/sqlite-connection.js";
import { createSqliteSessionStore, forkSqliteSessionLog } from "./sqlite-session-store.js";

/** Options of {@link createSqliteSessionBackend}. */
export interface SqliteSessionBackendOptions {
  /**
   * The folder of session files: `<agentStoreDir>/<conversation>/<session>.sqlite`, and each
   * conversation's `_session-host.db` beside them. Without it only explicit `databasePath`
   * sessions can be opened.
   */
  agentStoreDir?: string;
  /** How many idle sessions stay open for their next run (default 8). */
  maxIdleSessions?: number;
}

/** The SQLite session backend, with the folder it keeps sessions in. */
export interface SqliteSessionBackend extends SessionBackend {
  /** The absolute session folder, or `undefined` for a backend of explicit paths only. */
  readonly agentStoreDir: string | undefined;
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

/**
 * The SQLite session backend (SES-1, SES-2, HOST-1): one SQLite file per (conversation, session
 * key) under `agentStoreDir`, its lease on a lock file beside it (one owner across processes of
 * one machine, released when the owner dies), warm sessions kept open between runs, and each
 * conversation's host record in the conversation's folder. `databasePath` requests name session
 * files directly. `createSqliteStorage` gives one as `storage.sessions`.
 *
 * @example
 * const sessions = createSqliteSessionBackend({ agentStoreDir: ".workflow/agents" });
 * const store = await sessions.open({ address: { projectId: "p", conversationId: "c1", sessionKey: "agent" }, ownerId: "run-1" });
 * await store.close();
 * await sessions.close();
 */
export function createSqliteSessionBackend(options: SqliteSessionBackendOptions = {}): SqliteSessionBackend {
  const agentStoreDir = options.agentStoreDir === undefined ? undefined : resolve(options.agentStoreDir);
  const shared = sharedOpens();
  // Issue 45 item 1: a new chat's host record and session log are links to seeds made ahead.
  const releaseSeeds = agentStoreDir === undefined ? () => {} : poolSeedsUnder(agentStoreDir);
  const maxIdle = Math.max(0, options.maxIdleSessions ?? 8);
  // Warm sessions: a released session keeps its store and its lease's lock-file connection for the next run (SES-2: the same lock protocol as any lease provider's).
  const leases = createSqliteSessionLeaseProvider({ agentStoreDir, maxIdle });
  const kept = sharedOpens(maxIdle);
  /** The clock of each held session's run; its kept store stamps appends with it. */
  const clocks = new Map<string, Clock | undefined>();
  const backend = createSessionBackend(
    {
      kind: "sqlite",
      durable: true,
      acceptsDatabasePath: true,
      leases,
      async hold(request) {
        const path = resolveSessionDatabasePath({ ...request.address, agentStoreDir, databasePath: request.databasePath });
        let store: SessionStore;
        try {
          store = kept(path, () => createSqliteSessionStore({ path, address: request.address, clock: { now: () => (clocks.get(path) ?? Date).now() } }));
        } catch (error) {
          throw wrapAdapterError("sqlite", `cannot open the session ${path}`, error);
        }
        clocks.set(path, request.clock);
        return { store: { ...store, address: structuredClone(request.address), close: () => (clocks.delete(path), store.close()) } };
      },
      async unleased(request) {
        const path = resolveSessionDatabasePath({ ...request.address, agentStoreDir, databasePath: request.databasePath });
        if (!request.create && !existsSync(path)) return null;
        // Not the lease holder's connection (the pool's): WAL lets it read while that one writes.
        // A caller's own clock stamps its appends: such a store is its own.
        if (request.clock) return createSqliteSessionStore({ path, address: request.address, clock: request.clock });
        return shared(path, () => createSqliteSessionStore({ path, address: request.address }));
      },
      async hostStore(conversationId, create) {
        if (agentStoreDir === undefined) throw new SteamharnessError("input_validation", "a session host record needs the backend's agentStoreDir", { field: "agentStoreDir" });
        const path = sessionHostDatabasePath(agentStoreDir, conversationId);
        return !create && !existsSync(path) ? null : shared(path, () => openSqliteSessionHostStore({ path }));
      },
      async forkLog(request) {
        const path = resolveSessionDatabasePath({ ...request.to, agentStoreDir });
        if (agentStoreDir !== undefined && !existsSync(path)) markForeignFork(agentStoreDir, request.from, path);
        await forkSqliteSessionLog(path, request);
      },
      async close() {
        releaseSeeds();
        // A session still held loses its store and its lease.
        kept.closeAll();
        await leases.close();
      },
    },
  );
  return { ...backend, agentStoreDir };
}
