import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { SessionBackend } from "../../../../ports/session-backend.js";
import { openSqliteSessionHostStore, sessionHostDatabasePath } from "../session-host/sqlite-session-host-store.js";
import { markForeignFork, resolveSessionDatabasePath } from "./session-database-path.js";
import { sharedOpens, sqliteSessionPool } from "./sqlite-session-pool.js";
import { poolSeedsUnder } from "../shared/seed-pool.js";
import { createSessionBackend } from "../../kernel/session-backend.js";
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
  const pool = sqliteSessionPool({ ...(agentStoreDir === undefined ? {} : { agentStoreDir }), ...(options.maxIdleSessions === undefined ? {} : { maxIdle: options.maxIdleSessions }) });
  const backend = createSessionBackend(
    {
      kind: "sqlite",
      durable: true,
      acceptsDatabasePath: true,
      leases: pool.leases,
      hold: pool.hold,
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
      close: () => (releaseSeeds(), pool.close()),
    },
  );
  return { ...backend, agentStoreDir };
}
