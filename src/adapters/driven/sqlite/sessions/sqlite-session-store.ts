import { existsSync } from "node:fs";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { SessionAddress, SessionStore } from "../../../../ports/session-store.js";
import type { SessionForkRequest } from "../../../../ports/session-backend.js";
import type { BetterSQLite3Database as SessionDb } from "drizzle-orm/better-sqlite3";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { sessionTables } from "./session-schema.js";
import { openMigratedSqlite, seedSqliteFile } from "../shared/migrations.js";
import { requireMigrationsFolder } from "../../system/migrations-folder.js";
import { sqliteSqlDriver } from "../shared/sqlite-sql-driver.js";
import { forkSteps, newHead, sqlSessionStore, type SqlSessionTables } from "../../kernel/sql-session-rows.js";
import type { SqlDriver } from "../../kernel/sql-driver.js";
import type { StoreCall } from "../../kernel/store-call.js";

/** Options of {@link createSqliteSessionStore}. */
export interface SqliteSessionStoreOptions {
  /** The session's database file (see `resolveSessionDatabasePath`); its folder is created. */
  path: string;
  address: SessionAddress;
  clock?: Clock;
  /** How long a write waits for another connection's write lock (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * `"normal"` (default): a commit survives the process being killed (SIGKILL included, SES-2,
   * SES-4); a power loss may drop the last commits but never corrupts the file. `"full"` also
   * syncs every commit to disk, at the cost of one fsync per append.
   */
  synchronous?: "normal" | "full";
  /** The migration folder; default: the package's `drizzle/session`. */
  migrationsFolder?: string;
}

/** The session file's tables under the kernel's names, and its row driver. */
const driverOn = (db: SessionDb, clock: Clock): SqlDriver<SqlSessionTables> => {
  const { sessionMeta, sessionEvents, sessionSnapshots } = sessionTables();
  return sqliteSqlDriver(db, { heads: sessionMeta, events: sessionEvents, snapshots: sessionSnapshots }, clock);
};

/**
 * The durable session store on SQLite (SES-1): one file per session in WAL mode, an append-only
 * events table (unique event id, `seq` primary key, index by run), the latest snapshot and a meta
 * row that keeps `head()` O(1). Each `append` is one IMMEDIATE transaction. Faults reject with
 * `storage_failure` (cause kept, nothing half-written); calls after `close()` with `unavailable`.
 * Opening creates the folder and applies the checked-in migrations; it throws `storage_failure`
 * when the file cannot be opened or migrated.
 *
 * @example
 * const path = resolveSessionDatabasePath({ agentStoreDir, conversationId, sessionKey: "agent" });
 * const store = createSqliteSessionStore({ path, address: { projectId, conversationId, sessionKey: "agent" } });
 * await store.append([{ eventId: "run-1/plan/0", runId: "run-1", type: "plan", payload: { planIndex: 0, text: "…" } }]);
 */
export function createSqliteSessionStore(options: SqliteSessionStoreOptions): SessionStore {
  const address: SessionAddress = structuredClone(options.address);
  const clock = options.clock ?? { now: () => Date.now() };
  /** The file's meta row: a new file's, or a damaged file's rebuilt from its log. */
  const writeHead = (driver: SqlDriver<SqlSessionTables>, head?: Parameters<typeof newHead>[3]) => newHead(driver, address, clock.now(), head);
  // A new file has its meta row from the start; `storage_failure` when it cannot be opened or migrated.
  const { client, db } = openMigratedSqlite(options.path, { ...options, migrations: "session", what: "session database", initialise: (db) => void writeHead(driverOn(db, clock)) });
  const driver = driverOn(db, clock);
  /**
   * The head of a file whose meta row is missing (written by hand or damaged), from its log and
   * snapshot; a write rebuilds the row first, so seqs continue after the last stored event
   * instead of colliding with it.
   */
  const headFromLog = (tx: SqlDriver<SqlSessionTables>, write: boolean) => {
    const { desc, eq } = drizzleOrm();
    const { events, snapshots } = tx.tables;
    const last = tx.db.select({ seq: events.seq }).from(events).orderBy(desc(events.seq)).limit(1).get();
    const started = tx.db.select({ runId: events.runId }).from(events).where(eq(events.type, "run_started")).orderBy(desc(events.seq)).limit(1).get();
    const kept = tx.db.select().from(snapshots).orderBy(desc(snapshots.atSeq)).limit(1).get();
    const head = { lastSeq: last?.seq ?? 0, lastRunId: started?.runId ?? null, atSeq: kept?.atSeq ?? null, state: kept?.state ?? null };
    if (write) writeHead(tx, { lastSeq: head.lastSeq, lastRunId: head.lastRunId, snapshotAtSeq: head.atSeq });
    return head;
  };
  return sqlSessionStore({ address, sessionId: 1, run: { driver }, noHead: headFromLog, close: () => client.close(), call: sqliteSessionCall, clock });
}

/**
 * Creates the session file `path` of a fork (the session-backend port's `forkLog`, FORK-1): a
 * copy of the migrated session image with its meta row (the pointer to `from` at `throughSeq`,
 * the head of the prefix) and the `append` events numbered on from the point, written whole and
 * once by {@link seedSqliteFile} (`conflict` when the file exists). Nothing of the prefix is
 * copied and no journal or checkpoint runs, so the cost is one small file write whatever the
 * history's length. A file system without hard links cannot hold forks (`storage_failure`).
 *
 * @example
 * await forkSqliteSessionLog(child, { from: parentAddress, to: childAddress, throughSeq: 12, lastRunId: "run-3" });
 */
export async function forkSqliteSessionLog(path: string, request: SessionForkRequest & { lastRunId: string | null }, now = Date.now()): Promise<void> {
  const folder = requireMigrationsFolder("session", "sqlite");
  let created: boolean;
  try {
    // A file that exists is never written (seedSqliteFile checks first).
    created = seedSqliteFile(path, folder, (db) => driverOn(db, { now: () => now }).transaction((tx) => forkSteps(tx, request, now)));
  } catch (error) {
    throw wrapAdapterError("sqlite", "writing the fork's session failed", error);
  }
  if (!created) {
    if (existsSync(path)) throw new SteamharnessError("conflict", "[steamharness] [sqlite] the fork's session exists already", { field: "to" });
    throw new SteamharnessError("storage_failure", "[steamharness] [sqlite] the fork's session file cannot be created here: its file system has no hard links", { field: "to" });
  }
}

/** Wraps a session step's fault once (no busy retry: the connection's busy timeout waits). */
const sqliteSessionCall: StoreCall = async (what, step) => {
  try {
    return await step();
  } catch (error) {
    throw wrapAdapterError("sqlite", `${what} failed`, error);
  }
};
