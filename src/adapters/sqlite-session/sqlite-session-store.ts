import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { SteamharnessError, wrapAdapterError } from "../../domain/errors.js";
import type { Clock } from "../../ports/clock.js";
import type {
  SessionAddress,
  SessionAppendResult,
  SessionEvent,
  SessionEventInput,
  SessionHead,
  SessionReadOptions,
  SessionSnapshot,
  SessionStore,
} from "../../ports/session-store.js";
import { sessionEvents, sessionMeta, sessionSnapshots } from "./session-schema.js";
import { openSqlite } from "./sqlite-connection.js";
import { ensureSessionSchema, findSessionMigrationsFolder } from "./session-migrations.js";
import { eventRow, rowEvent, snapshotState, validateEvent, validateSnapshot, type EventRow } from "./session-rows.js";

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

type SessionDb = BetterSQLite3Database;

/** Opens, configures and migrates the file; a freshly migrated file gets its meta row. */
function openDatabase(options: SqliteSessionStoreOptions, now: number): { client: Database.Database; db: SessionDb } {
  const folder = options.migrationsFolder ?? findSessionMigrationsFolder();
  if (folder === null) throw new SteamharnessError("internal", "[steamharness] [sqlite] drizzle/session migrations not found");
  mkdirSync(dirname(options.path), { recursive: true });
  const client = openSqlite(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    // PRAGMAs are connection settings drizzle has no builder for.
    client.pragma("journal_mode = WAL");
    client.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    const db = drizzle({ client });
    const { address } = options;
    ensureSessionSchema(db, client, folder, () => {
      db.insert(sessionMeta)
        .values({ id: 1, projectId: address.projectId, conversationId: address.conversationId ?? null, sessionKey: address.sessionKey, createdAt: now })
        .onConflictDoNothing()
        .run();
    });
    return { client, db };
  } catch (error) {
    client.close();
    throw error;
  }
}

/**
 * The hot statements, each prepared by drizzle on first use: a process that only reads a paused
 * session's head pays for the statements it runs, not for all of them.
 */
function prepareStatements(db: SessionDb) {
  const bySeq = asc(sessionEvents.seq);
  const builders = {
    meta: () => db.select().from(sessionMeta).where(eq(sessionMeta.id, 1)).prepare(),
    head: () =>
      db
        .select({ lastSeq: sessionMeta.lastSeq, lastRunId: sessionMeta.lastRunId, atSeq: sessionSnapshots.atSeq, state: sessionSnapshots.state })
        .from(sessionMeta)
        .leftJoin(sessionSnapshots, eq(sessionSnapshots.atSeq, sessionMeta.snapshotAtSeq))
        .where(eq(sessionMeta.id, 1))
        .prepare(),
    byEventId: () => db.select().from(sessionEvents).where(eq(sessionEvents.eventId, sql.placeholder("eventId"))).prepare(),
    byRun: () => db.select().from(sessionEvents).where(eq(sessionEvents.runId, sql.placeholder("runId"))).orderBy(bySeq).prepare(),
    after: () =>
      db
        .select()
        .from(sessionEvents)
        .where(gt(sessionEvents.seq, sql.placeholder("afterSeq")))
        .orderBy(bySeq)
        .limit(sql.placeholder("limit"))
        .prepare(),
    insert: () =>
      db
        .insert(sessionEvents)
        .values({
          seq: sql.placeholder("seq"),
          eventId: sql.placeholder("eventId"),
          runId: sql.placeholder("runId"),
          type: sql.placeholder("type"),
          payload: sql.placeholder("payload"),
          at: sql.placeholder("at"),
        })
        // A known event id is skipped by the unique index, so no lookup precedes each insert.
        .onConflictDoNothing({ target: sessionEvents.eventId })
        .prepare(),
    advance: () =>
      db
        .update(sessionMeta)
        .set({ lastSeq: sql`${sql.placeholder("lastSeq")}`, lastRunId: sql`coalesce(${sql.placeholder("lastRunId")}, ${sessionMeta.lastRunId})` })
        .where(eq(sessionMeta.id, 1))
        .prepare(),
  };
  type Statements = { [K in keyof typeof builders]: ReturnType<(typeof builders)[K]> };
  const prepared: Partial<Statements> = {};
  const statements = {} as Statements;
  for (const name of Object.keys(builders) as Array<keyof Statements>) {
    Object.defineProperty(statements, name, {
      get: () => (prepared[name] ??= builders[name]() as never),
    });
  }
  return statements;
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
  const address: SessionAddress = structuredClone(options.address);
  const clock = options.clock ?? { now: () => Date.now() };
  let client: Database.Database;
  let db: SessionDb;
  let statements: ReturnType<typeof prepareStatements>;
  try {
    ({ client, db } = openDatabase(options, clock.now()));
    statements = prepareStatements(db);
  } catch (error) {
    throw wrapAdapterError("sqlite", `cannot open session database ${options.path}`, error);
  }
  let closed = false;

  /** Runs one port call: `unavailable` after close, adapter faults wrapped once. */
  const call = async <T>(what: string, fn: () => T): Promise<T> => {
    if (closed) throw new SteamharnessError("unavailable", "[steamharness] [sqlite] session store is closed");
    try {
      return fn();
    } catch (error) {
      throw wrapAdapterError("sqlite", `session ${what} failed`, error);
    }
  };

  const lastSeq = (): number => statements.meta.get()?.lastSeq ?? 0;

  return {
    address: structuredClone(address),
    append(inputs: readonly SessionEventInput[]): Promise<SessionAppendResult> {
      return call("append", () => {
        inputs.forEach(validateEvent);
        const rows = inputs.map(eventRow);
        const at = clock.now();
        return db.transaction(() => {
          let seq = lastSeq();
          const events: SessionEvent[] = [];
          let appended = 0;
          let startedRun: string | null = null;
          for (const row of rows) {
            const stored: EventRow = { ...row, seq: seq + 1, at };
            if (statements.insert.run({ ...stored }).changes === 0) {
              // Already stored (earlier, or earlier in this batch): return that event unchanged.
              events.push(rowEvent(statements.byEventId.get({ eventId: row.eventId })!));
              continue;
            }
            seq += 1;
            events.push(rowEvent(stored));
            appended += 1;
            if (row.type === "run_started") startedRun = row.runId;
          }
          if (appended > 0) statements.advance.run({ lastSeq: seq, lastRunId: startedRun });
          return { events, appended };
        }, { behavior: "immediate" });
      });
    },
    readRun(runId) {
      return call("readRun", () => statements.byRun.all({ runId }).map(rowEvent));
    },
    readAfter(afterSeq, readOptions: SessionReadOptions = {}) {
      return call("readAfter", () => {
        const limit = readOptions.limit ?? -1;
        if (readOptions.types === undefined) return statements.after.all({ afterSeq, limit }).map(rowEvent);
        if (readOptions.types.length === 0) return [];
        return db
          .select()
          .from(sessionEvents)
          .where(and(gt(sessionEvents.seq, afterSeq), inArray(sessionEvents.type, [...readOptions.types])))
          .orderBy(asc(sessionEvents.seq))
          .limit(limit)
          .all()
          .map(rowEvent);
      });
    },
    get(eventId) {
      return call("get", () => {
        const row = statements.byEventId.get({ eventId });
        return row ? rowEvent(row) : null;
      });
    },
    head(): Promise<SessionHead> {
      return call("head", () => {
        const row = statements.head.get();
        const snapshot = row?.atSeq == null || row.state == null ? null : { atSeq: row.atSeq, state: snapshotState(row.state) };
        return { lastSeq: row?.lastSeq ?? 0, snapshot, lastRunId: row?.lastRunId ?? null };
      });
    },
    putSnapshot(next: SessionSnapshot) {
      return call("putSnapshot", () => {
        const state = validateSnapshot(next);
        db.transaction((tx) => {
          const meta = statements.meta.get();
          const last = meta?.lastSeq ?? 0;
          if (next.atSeq > last) {
            throw new SteamharnessError("input_validation", `snapshot atSeq ${next.atSeq} is outside the log (0..${last})`, { field: "atSeq" });
          }
          const kept = meta?.snapshotAtSeq ?? null;
          if (kept !== null && next.atSeq < kept) {
            throw new SteamharnessError("input_validation", `snapshot atSeq ${next.atSeq} is older than the kept one (${kept})`, { field: "atSeq" });
          }
          tx.delete(sessionSnapshots).run();
          tx.insert(sessionSnapshots).values({ atSeq: next.atSeq, state, writtenAt: clock.now() }).run();
          tx.update(sessionMeta).set({ snapshotAtSeq: next.atSeq }).where(eq(sessionMeta.id, 1)).run();
        }, { behavior: "immediate" });
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        client.close();
      } catch (error) {
        throw wrapAdapterError("sqlite", "closing the session database failed", error);
      }
    },
  };
}
