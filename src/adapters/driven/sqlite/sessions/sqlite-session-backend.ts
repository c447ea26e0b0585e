import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { SessionBackend } from "../../../../ports/session-backend.js";
import { openSqliteSessionHostStore, sessionHostDatabasePath } from "../session-host/sqlite-session-host-store.js";
import { resolveSessionDatabasePath } from "./session-database-path.js";
import { createSqliteSessionLeaseProvider } from "./sqlite-session-lease.js";
import { sqliteSessionPool } from "./sqlite-session-pool.js";
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
  const pool = sqliteSessionPool({ ...(agentStoreDir === undefined ? {} : { agentStoreDir }), ...(options.maxIdleSessions === undefined ? {} : { maxIdle: options.maxIdleSessions }) });
  const backend = createSessionBackend(
    {
      kind: "sqlite",
      durable: true,
      acceptsDatabasePath: true,
      leases: createSqliteSessionLeaseProvider(agentStoreDir === undefined ? {} : { agentStoreDir }),
      hold: pool.hold,
      async unleased(request) {
        const path = resolveSessionDatabasePath({ ...request.address, agentStoreDir, databasePath: request.databasePath });
        if (!request.create && !existsSync(path)) return null;
        // Another connection to the file: WAL lets it read while the owner's connection writes.
        return createSqliteSessionStore({ path, address: request.address, ...(request.clock ? { clock: request.clock } : {}) });
      },
      async hostStore(conversationId, create) {
        if (agentStoreDir === undefined) throw new SteamharnessError("input_validation", "a session host record needs the backend's agentStoreDir", { field: "agentStoreDir" });
        const path = sessionHostDatabasePath(agentStoreDir, conversationId);
        return !create && !existsSync(path) ? null : openSqliteSessionHostStore({ path });
      },
      async forkLog({ from, to, throughSeq, append, lastRunId }) {
        await forkSqliteSessionLog({ path: resolveSessionDatabasePath({ ...to, agentStoreDir }), address: to, base: { address: from, seq: throughSeq }, lastRunId, ...(append ? { append } : {}) });
      },
      close: () => pool.close(),
    },
    "sqlite",
  );
  return { ...backend, agentStoreDir };
}
