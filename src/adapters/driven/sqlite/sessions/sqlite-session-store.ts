import { existsSync } from "node:fs";
import type Database from "better-sqlite3";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { SessionAddress, SessionEventInput, SessionStore } from "../../../../ports/session-store.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { sessionTables } from "./session-schema.js";
import { compileSessionQuery, prepareSessionReads, prepareSessionStatements, prepareSessionWrites, type MetaRow, type SessionDb } from "./session-statements.js";
import { findMigrationsFolder, openMigratedSqlite, seedSqliteFile } from "../shared/migrations.js";
import { createSessionStore, type EventRow, type NewEventRow, type SessionBase, type SessionRows } from "../../kernel/session-store.js";
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

/** Writes the meta row of a new session file (a fork's with its pointer and head); a no-op when it exists. One statement text per process. */
function insertMeta(client: Database.Database, db: SessionDb, address: SessionAddress, now: number, fork?: { base: SessionBase; lastSeq: number; lastRunId: string | null }): void {
  const { sql } = drizzleOrm();
  const { sessionMeta } = sessionTables();
  const columns = { projectId: address.projectId, conversationId: address.conversationId ?? null, sessionKey: address.sessionKey, createdAt: now, lastSeq: fork?.lastSeq ?? 0, lastRunId: fork?.lastRunId ?? null, baseProjectId: fork?.base.address.projectId ?? null, baseConversationId: fork?.base.address.conversationId ?? null, baseSessionKey: fork?.base.address.sessionKey ?? null, baseSeq: fork?.base.seq ?? null };
  const placeholders = Object.fromEntries(Object.keys(columns).map((column) => [column, sql.placeholder(column)]));
  compileSessionQuery(client, "insert-meta", () => db.insert(sessionMeta).values({ id: 1, ...placeholders } as typeof sessionMeta.$inferInsert).onConflictDoNothing()).run(columns);
}

/** Opens, configures and migrates the file (a new file has its meta row from the start); `storage_failure` when it cannot. */
function openDatabase(options: SqliteSessionStoreOptions, now: number): { client: Database.Database; db: SessionDb } {
  const { migrationsFolder, busyTimeoutMs, synchronous } = options;
  return openMigratedSqlite(options.path, {
    migrations: "session",
    what: "session database",
    ...(migrationsFolder ? { migrationsFolder } : {}),
    ...(busyTimeoutMs === undefined ? {} : { busyTimeoutMs }),
    ...(synchronous ? { synchronous } : {}),
    initialise: (db, client) => insertMeta(client, db, options.address, now),
  });
}

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
  const { desc, eq } = drizzleOrm();
  const { sessionEvents, sessionMeta, sessionSnapshots } = sessionTables();
  const address: SessionAddress = structuredClone(options.address);
  const clock = options.clock ?? { now: () => Date.now() };
  const { client, db } = openDatabase(options, clock.now());
  // Both compile their statements on first use: nothing here can fail.
  const statements = prepareSessionStatements(client);
  const reads = prepareSessionReads(client);
  /** The append's statements, compiled on the first append (a reading process never needs them). */
  let appendInTransaction: ReturnType<typeof transactionalAppend> | undefined;

  /**
   * The meta row, inside a write transaction. A file whose meta row is missing (written by hand
   * or damaged) gets it rebuilt from the log and snapshot first, so seqs continue after the last
   * stored event instead of colliding with it.
   */
  const metaFromLog = () => {
    const last = db.select({ seq: sessionEvents.seq }).from(sessionEvents).orderBy(desc(sessionEvents.seq)).limit(1).get();
    const started = db.select({ runId: sessionEvents.runId }).from(sessionEvents).where(eq(sessionEvents.type, "run_started")).orderBy(desc(sessionEvents.seq)).limit(1).get();
    const snapshot = db.select({ atSeq: sessionSnapshots.atSeq }).from(sessionSnapshots).orderBy(desc(sessionSnapshots.atSeq)).limit(1).get();
    return { lastSeq: last?.seq ?? 0, lastRunId: started?.runId ?? null, snapshotAtSeq: snapshot?.atSeq ?? null };
  };
  const currentMeta = () => {
    const meta = statements.meta.get<MetaRow>();
    if (meta) return meta;
    insertMeta(client, db, address, clock.now());
    db.update(sessionMeta).set(metaFromLog()).where(eq(sessionMeta.id, 1)).run();
    return statements.meta.get<MetaRow>()!;
  };

  /**
   * The append as one better-sqlite3 transaction function (run with `.immediate`): SQLite's own
   * path, synchronous inside, a known id skipped by the unique index.
   */
  const transactionalAppend = () => {
    const writes = prepareSessionWrites(db, client);
    return client.transaction((rows: readonly NewEventRow[], at: number) => {
      let seq = writes.meta.get<MetaRow>()?.lastSeq ?? currentMeta().lastSeq;
      const byId = new Map<string, EventRow>();
      let appended = 0;
      let startedRun: string | null = null;
      for (const row of rows) {
        const stored: EventRow = { ...row, seq: seq + 1, at };
        if (writes.insert.run({ ...stored }).changes === 0) {
          // Already stored earlier: that event, unchanged.
          byId.set(row.eventId, statements.byEventId.get<EventRow>({ eventId: row.eventId })!);
          continue;
        }
        seq += 1;
        appended += 1;
        byId.set(row.eventId, stored);
        if (row.type === "run_started") startedRun = row.runId;
      }
      if (appended > 0) writes.advance.run({ lastSeq: seq, lastRunId: startedRun });
      return { byId, appended };
    });
  };

  const rows: SessionRows = {
    append: (newRows, at) => (appendInTransaction ??= transactionalAppend()).immediate(newRows, at),
    byRun: (runId) => statements.byRun.all<EventRow>({ runId }),
    after: (afterSeq, { types, limit = -1, newestFirst, throughSeq }) => reads.eventsAfter(afterSeq, limit, newestFirst, types, throughSeq),
    byId: (eventId) => statements.byEventId.get<EventRow>({ eventId }),
    head() {
      const row = reads.head();
      if (row !== undefined) return row;
      // No meta row (a damaged file): the same answer from the log, without writing.
      const meta = metaFromLog();
      const kept = meta.snapshotAtSeq === null ? undefined : db.select().from(sessionSnapshots).where(eq(sessionSnapshots.atSeq, meta.snapshotAtSeq)).get();
      return { lastSeq: meta.lastSeq, lastRunId: meta.lastRunId, atSeq: kept?.atSeq ?? null, state: kept?.state ?? null };
    },
    putSnapshot: (atSeq, state, check) =>
      db.transaction((tx) => {
        const meta = currentMeta();
        check(meta.lastSeq, meta.snapshotAtSeq);
        tx.delete(sessionSnapshots).run();
        tx.insert(sessionSnapshots).values({ atSeq, state, writtenAt: clock.now() }).run();
        tx.update(sessionMeta).set({ snapshotAtSeq: atSeq }).where(eq(sessionMeta.id, 1)).run();
      }, { behavior: "immediate" }),
    async close() {
      try {
        client.close();
      } catch (error) {
        throw wrapAdapterError("sqlite", "closing the session database failed", error);
      }
    },
  };
  // A fork's pointer is fixed when its file is made, so it is read once, here.
  const pointer = reads.base();
  const base: SessionBase | null = pointer?.seq == null ? null : { address: { projectId: pointer.projectId!, sessionKey: pointer.sessionKey!, ...(pointer.conversationId === null ? {} : { conversationId: pointer.conversationId }) }, seq: pointer.seq };
  return createSessionStore({ address, rows, call: sqliteSessionCall, clock, family: "sqlite", base });
}

/** Options of {@link forkSqliteSessionLog}: the new file's options plus the fork's pointer and head. */
export interface SqliteSessionForkOptions extends SqliteSessionStoreOptions {
  /** The session the fork reads events 1..`base.seq` from. */
  base: SessionBase;
  /** The last run started in the prefix. */
  lastRunId: string | null;
  /** Events appended after the prefix in the same transaction. */
  append?: readonly SessionEventInput[];
}

/**
 * Creates the session file `path` of a fork (the session-backend port's `forkLog`, FORK-1): a
 * copy of the migrated session image with its meta row (the pointer to `base`, the head of the
 * prefix) and the `append` events numbered on from `base.seq`, written whole and once by
 * {@link seedSqliteFile} (`conflict` when the file exists). Nothing of the prefix is copied and
 * no journal or checkpoint runs, so the cost is one small file write whatever the history's
 * length. A file system without hard links cannot hold forks (`storage_failure`).
 *
 * @example
 * await forkSqliteSessionLog({ path: child, address: childAddress, base: { address: parentAddress, seq: 12 }, lastRunId: "run-3" });
 */
export async function forkSqliteSessionLog(options: SqliteSessionForkOptions): Promise<void> {
  const folder = options.migrationsFolder ?? findMigrationsFolder("session");
  if (folder === null) throw new SteamharnessError("internal", "[steamharness] [sqlite] drizzle/session migrations not found");
  const conflict = () => new SteamharnessError("conflict", "[steamharness] [sqlite] the fork's session exists already", { field: "to" });
  if (existsSync(options.path)) throw conflict();
  const now = (options.clock ?? { now: () => Date.now() }).now();
  const { address, base, append = [] } = options;
  let created: boolean;
  try {
    created = seedSqliteFile(options.path, folder, (db, client) =>
      client.transaction(() => {
        insertMeta(client, db, address, now, { base, lastSeq: base.seq + append.length, lastRunId: options.lastRunId });
        const { insert } = prepareSessionWrites(db, client);
        append.forEach((event, i) => insert.run({ seq: base.seq + i + 1, eventId: event.eventId, runId: event.runId, type: event.type, payload: JSON.stringify(event.payload), at: now }));
      })(),
    );
  } catch (error) {
    throw wrapAdapterError("sqlite", "writing the fork's session failed", error);
  }
  if (!created) {
    if (existsSync(options.path)) throw conflict();
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
