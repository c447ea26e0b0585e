import { existsSync, rmSync } from "node:fs";
import type Database from "better-sqlite3";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { SessionAddress, SessionEventInput, SessionStore } from "../../../../ports/session-store.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { sessionTables } from "./session-schema.js";
import { prepareSessionReads, prepareSessionStatements, prepareSessionWrites, type SessionDb } from "./session-statements.js";
import { openMigratedSqlite } from "../shared/migrations.js";
import { createSessionStore, type EventRow, type NewEventRow, type SessionRows } from "../../kernel/session-store.js";
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

/** Writes the meta row of a new session file; a no-op when it exists. */
function insertMeta(db: SessionDb, address: SessionAddress, now: number): void {
  const { sessionMeta } = sessionTables();
  db.insert(sessionMeta)
    .values({ id: 1, projectId: address.projectId, conversationId: address.conversationId ?? null, sessionKey: address.sessionKey, createdAt: now })
    .onConflictDoNothing()
    .run();
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
    initialise: (db) => insertMeta(db, options.address, now),
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
  const statements = prepareSessionStatements(db);
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
    const meta = statements.meta.get();
    if (meta) return meta;
    insertMeta(db, address, clock.now());
    db.update(sessionMeta).set(metaFromLog()).where(eq(sessionMeta.id, 1)).run();
    return statements.meta.get()!;
  };

  /**
   * The append as one better-sqlite3 transaction function (run with `.immediate`): SQLite's own
   * path, synchronous inside, a known id skipped by the unique index.
   */
  const transactionalAppend = () => {
    const writes = prepareSessionWrites(db, client);
    return client.transaction((rows: readonly NewEventRow[], at: number) => {
      let seq = writes.meta.get<{ lastSeq: number }>()?.lastSeq ?? currentMeta().lastSeq;
      const byId = new Map<string, EventRow>();
      let appended = 0;
      let startedRun: string | null = null;
      for (const row of rows) {
        const stored: EventRow = { ...row, seq: seq + 1, at };
        if (writes.insert.run({ ...stored }).changes === 0) {
          // Already stored earlier: that event, unchanged.
          byId.set(row.eventId, statements.byEventId.get({ eventId: row.eventId })!);
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
    byRun: (runId) => statements.byRun.all({ runId }),
    after: (afterSeq, { types, limit = -1, newestFirst }) => reads.eventsAfter(afterSeq, limit, newestFirst, types),
    byId: (eventId) => statements.byEventId.get({ eventId }),
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
  return createSessionStore({ address, rows, call: sqliteSessionCall, clock, family: "sqlite" });
}

/** Options of {@link copySqliteSessionLog}: the new file's options plus the file copied from. */
export interface SqliteSessionCopyOptions extends SqliteSessionStoreOptions {
  /** The existing session file whose events 1..`throughSeq` are copied. */
  fromPath: string;
  /** The parent's address (its meta row's, should the file need one rebuilt). */
  fromAddress: SessionAddress;
  throughSeq: number;
  /** Events appended after the prefix in the same transaction. */
  append?: readonly SessionEventInput[];
}

/**
 * Creates the session file `path` holding `fromPath`'s events 1..`throughSeq` (the session-backend
 * port's `copyLog`, FORK-1): the parent file is attached to the new file's connection and the
 * prefix copied by one `INSERT … SELECT` in one IMMEDIATE transaction, with the meta row set from
 * the copied rows. `not_found` / `conflict` / `input_validation` before anything is written; a
 * fault after the file was created removes it again.
 *
 * @example
 * await copySqliteSessionLog({ fromPath: parent, fromAddress, path: child, address: childAddress, throughSeq: 12 });
 */
export async function copySqliteSessionLog(options: SqliteSessionCopyOptions): Promise<void> {
  const { sql } = drizzleOrm();
  const { sessionEvents, sessionMeta } = sessionTables();
  if (!existsSync(options.fromPath)) throw new SteamharnessError("not_found", "[steamharness] [sqlite] the session to fork does not exist", { field: "from" });
  if (existsSync(options.path)) throw new SteamharnessError("conflict", "[steamharness] [sqlite] the fork's session exists already", { field: "to" });
  // The parent's head through its own store, which brings a file of an older schema up to date first.
  const parent = createSqliteSessionStore({ path: options.fromPath, address: options.fromAddress, ...(options.migrationsFolder ? { migrationsFolder: options.migrationsFolder } : {}) });
  const { lastSeq } = await parent.head().finally(() => parent.close());
  if (options.throughSeq > lastSeq) throw new SteamharnessError("input_validation", `seq ${options.throughSeq} is past the session's last event (${lastSeq})`, { field: "at" });
  const { client, db } = openDatabase(options, (options.clock ?? { now: () => Date.now() }).now());
  try {
    // ATTACH is a connection statement drizzle has no builder for; the copy itself is built from the schema's tables.
    client.prepare("ATTACH DATABASE ? AS parent").run(options.fromPath);
    const columns = sql.join([sessionEvents.seq, sessionEvents.eventId, sessionEvents.runId, sessionEvents.type, sessionEvents.payload, sessionEvents.at].map((column) => sql.identifier(column.name)), sql`, `);
    const source = sql`${sql.identifier("parent")}.${sql.identifier("session_events")}`;
    const through = options.throughSeq;
    const at = (options.clock ?? { now: () => Date.now() }).now();
    const appended = (options.append ?? []).map((event, i) => ({ seq: through + i + 1, eventId: event.eventId, runId: event.runId, type: event.type, payload: JSON.stringify(event.payload), at }));
    db.transaction((tx) => {
      tx.run(sql`INSERT INTO ${sessionEvents} (${columns}) SELECT ${columns} FROM ${source} WHERE ${sql.identifier("seq")} <= ${through}`);
      if (appended.length > 0) tx.insert(sessionEvents).values(appended).run();
      const lastRunId = sql`(SELECT ${sql.identifier("run_id")} FROM ${source} WHERE ${sql.identifier("type")} = 'run_started' AND ${sql.identifier("seq")} <= ${through} ORDER BY ${sql.identifier("seq")} DESC LIMIT 1)`;
      tx.update(sessionMeta).set({ lastSeq: through + appended.length, lastRunId }).run();
    }, { behavior: "immediate" });
    client.prepare("DETACH DATABASE parent").run();
    client.close();
  } catch (error) {
    client.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${options.path}${suffix}`, { force: true });
    throw wrapAdapterError("sqlite", "copying the session log failed", error);
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
