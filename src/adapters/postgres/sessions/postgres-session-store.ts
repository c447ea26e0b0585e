/**
 * The session store on PostgreSQL (SES-1, SES-3): one session's append-only log in the shared
 * `agent_session_events` table, keyed by the session's numeric id.
 *
 * Seq assignment: every append is one transaction that first locks the session's row in
 * `agent_sessions` (an `update … returning` of `last_seq`), so concurrent writers of one session
 * — an owner and an unleased writer, or two processes — queue on that row: seqs have no gaps and
 * are never reused, and the (session, seq) primary key and (session, event_id) unique index
 * catch what a bug would let through. Idempotency by event id is checked atomically: the common
 * append (all ids new) is one statement (advance the head, insert the batch after it); a batch
 * that meets a stored id fails that statement as a whole and runs the careful path (lock,
 * look up the stored ids, insert only new ones), so a resumed run re-appending its steps stores
 * nothing twice.
 */
import { and, asc, desc, eq, gt, inArray, sql } from "drizzle-orm";
import { SteamharnessError, wrapAdapterError } from "../../../domain/errors.js";
import { validateSessionEvent } from "../../../domain/agent/session-events.js";
import type { Clock } from "../../../ports/clock.js";
import type { SessionAddress, SessionAppendResult, SessionEvent, SessionEventInput, SessionHead, SessionReadOptions, SessionSnapshot, SessionStore } from "../../../ports/session-store.js";
import { checkSnapshotPosition, headOf, rowEvent, validateSnapshot, type EventRow } from "../../store-kernel/session-rows.js";
import { driverFault, type PostgresQueryable } from "../postgres-database.js";
import type { PostgresSessionTables } from "./session-schema.js";

/**
 * Where a store's statements run. A store under a lease runs everything on the lease's
 * connection (fencing: once that connection is gone, nothing of this owner reaches the server);
 * an unleased store reads on the pool and writes on the pool or, while this process holds the
 * session's lease, on the lease's connection.
 */
export interface SessionStoreAccess {
  read<T>(work: (db: PostgresQueryable) => Promise<T>): Promise<T>;
  write<T>(work: (db: PostgresQueryable) => Promise<T>): Promise<T>;
}

/** Options of {@link createPostgresSessionStore}. */
export interface PostgresSessionStoreOptions {
  address: SessionAddress;
  /** The session's row id in `agent_sessions`. */
  sessionId: number;
  tables: PostgresSessionTables;
  access: SessionStoreAccess;
  clock?: Clock;
  /** Runs once, on the first `close()` (e.g. releases the store's lease). */
  onClose?: () => Promise<void>;
}

type NewRow = Omit<EventRow, "seq" | "at">;

/**
 * The stored address key of a session: `""` outside a conversation, `"c:<id>"` inside one.
 *
 * @example
 * sessionScope({ projectId: "p", conversationId: "c1", sessionKey: "agent" }) // "c:c1"
 */
export function sessionScope(address: SessionAddress): string {
  return address.conversationId === undefined ? "" : `c:${address.conversationId}`;
}

/**
 * A session store over one session row. Faults reject with `storage_failure` (the driver's error
 * as `cause`; nothing half-written: every write is one transaction); calls after `close()` with
 * `unavailable`.
 *
 * @example
 * const store = createPostgresSessionStore({ address, sessionId: 7, tables, access });
 * await store.append([{ eventId: "run-1/plan/0", runId: "run-1", type: "plan", payload: { planIndex: 0, text: "…" } }]);
 */
export function createPostgresSessionStore(options: PostgresSessionStoreOptions): SessionStore {
  const { sessionId, access } = options;
  const { sessions, sessionEvents: events, sessionSnapshots: snapshots } = options.tables;
  const address: SessionAddress = structuredClone(options.address);
  const clock = options.clock ?? { now: () => Date.now() };
  let closed = false;
  let closing: Promise<void> | null = null;

  const call = async <T>(what: string, kind: "read" | "write", work: (db: PostgresQueryable) => Promise<T>): Promise<T> => {
    if (closed) throw new SteamharnessError("unavailable", "[steamharness] [postgres] session store is closed");
    try {
      return await access[kind](work);
    } catch (error) {
      if (error instanceof SteamharnessError) throw error;
      throw wrapAdapterError("postgres", `session ${what} failed`, driverFault(error));
    }
  };
  const columns = { seq: events.seq, eventId: events.eventId, runId: events.runId, type: events.type, payload: events.payload, at: events.at };
  const toEvents = (rows: EventRow[]): SessionEvent[] => rows.map(rowEvent);

  /**
   * All ids new: one statement (atomic on its own, one round trip) advances the head by the batch
   * — locking the session's row — and inserts the events numbered from the new head. Why a `sql`
   * template: drizzle has no builder for an insert from `unnest(…) with ordinality` fed by a
   * writable CTE. No `on conflict`: an id already stored fails the whole statement with a unique
   * violation of `agent_session_events_event_id` (nothing written), and the careful path runs.
   */
  const fastAppend = async (db: PostgresQueryable, rows: NewRow[], at: number): Promise<EventRow[] | null> => {
    const started = [...rows].reverse().find((row) => row.type === "run_started")?.runId ?? null;
    const n = rows.length;
    try {
      const result = await db.execute<{ seq: number | string }>(sql`
        with head as (
          update ${sessions} set ${sql.identifier(sessions.lastSeq.name)} = ${sessions.lastSeq} + ${n},
            ${sql.identifier(sessions.lastRunId.name)} = coalesce(${started}::text, ${sessions.lastRunId})
          where ${sessions.id} = ${sessionId} returning ${sessions.lastSeq} as last_seq
        )
        insert into ${events} (${sql.identifier(events.sessionId.name)}, ${sql.identifier(events.seq.name)}, ${sql.identifier(events.eventId.name)}, ${sql.identifier(events.runId.name)}, ${sql.identifier(events.type.name)}, ${sql.identifier(events.payload.name)}, ${sql.identifier(events.at.name)})
        select ${sessionId}, head.last_seq - ${n} + r.ord, r.event_id, r.run_id, r.type, r.payload, ${at}
        from head, unnest(${sql.param(rows.map((row) => row.eventId))}::text[], ${sql.param(rows.map((row) => row.runId))}::text[], ${sql.param(rows.map((row) => row.type))}::text[], ${sql.param(rows.map((row) => row.payload))}::text[])
          with ordinality as r(event_id, run_id, type, payload, ord)
        returning ${events.seq} as seq`);
      if (result.rows.length !== n) throw new SteamharnessError("storage_failure", `[steamharness] [postgres] session ${sessionId} has no row`);
      const first = Math.min(...result.rows.map((row) => Number(row.seq)));
      return rows.map((row, i) => ({ ...row, seq: first + i, at }));
    } catch (error) {
      const fault = driverFault(error) as { code?: string; constraint?: string };
      if (fault?.code === "23505" && fault.constraint === "agent_session_events_event_id") return null;
      throw error;
    }
  };

  /** Some ids may be stored: lock the head, look them up, insert only the new ones after the last seq. */
  const carefulAppend = (db: PostgresQueryable, rows: NewRow[], at: number) =>
    db.transaction(async (tx) => {
      const [head] = await tx.select({ lastSeq: sessions.lastSeq }).from(sessions).where(eq(sessions.id, sessionId)).for("update");
      if (!head) throw new SteamharnessError("storage_failure", `[steamharness] [postgres] session ${sessionId} has no row`);
      const known = await tx
        .select(columns)
        .from(events)
        .where(and(eq(events.sessionId, sessionId), inArray(events.eventId, rows.map((row) => row.eventId))));
      const byId = new Map<string, EventRow>(known.map((row) => [row.eventId, row]));
      let seq = head.lastSeq;
      const fresh: EventRow[] = [];
      for (const row of rows) {
        if (byId.has(row.eventId)) continue;
        const stored = { ...row, seq: ++seq, at };
        byId.set(row.eventId, stored);
        fresh.push(stored);
      }
      if (fresh.length > 0) {
        await tx.insert(events).values(fresh.map((row) => ({ sessionId, ...row })));
        const started = [...fresh].reverse().find((row) => row.type === "run_started")?.runId;
        await tx.update(sessions).set({ lastSeq: seq, ...(started === undefined ? {} : { lastRunId: started }) }).where(eq(sessions.id, sessionId));
      }
      return { byId, appended: fresh.length };
    });

  return {
    address: structuredClone(address),
    append(inputs: readonly SessionEventInput[]): Promise<SessionAppendResult> {
      return call("append", "write", async (db) => {
        inputs.forEach(validateSessionEvent);
        // Repeats within the batch resolve to their first occurrence.
        const unique = new Map<string, NewRow>();
        for (const input of inputs) if (!unique.has(input.eventId)) unique.set(input.eventId, { eventId: input.eventId, runId: input.runId, type: input.type, payload: JSON.stringify(input.payload) });
        const rows = [...unique.values()];
        if (rows.length === 0) return { events: [], appended: 0 };
        const at = clock.now();
        let byId: Map<string, EventRow>;
        let appended: number;
        const stored = await fastAppend(db, rows, at);
        if (stored) {
          byId = new Map(stored.map((row) => [row.eventId, row]));
          appended = stored.length;
        } else ({ byId, appended } = await carefulAppend(db, rows, at));
        return { events: inputs.map((input) => rowEvent(byId.get(input.eventId)!)), appended };
      });
    },
    readRun(runId) {
      return call("readRun", "read", async (db) =>
        toEvents(await db.select(columns).from(events).where(and(eq(events.sessionId, sessionId), eq(events.runId, runId))).orderBy(asc(events.seq))),
      );
    },
    readAfter(afterSeq, readOptions: SessionReadOptions = {}) {
      return call("readAfter", "read", async (db) => {
        if (readOptions.limit === 0 || readOptions.types?.length === 0) return [];
        const filter = and(
          eq(events.sessionId, sessionId),
          gt(events.seq, afterSeq),
          readOptions.types === undefined ? undefined : inArray(events.type, [...readOptions.types]),
        );
        const query = db.select(columns).from(events).where(filter).orderBy(readOptions.newestFirst ? desc(events.seq) : asc(events.seq));
        return toEvents(readOptions.limit === undefined ? await query : await query.limit(readOptions.limit));
      });
    },
    get(eventId) {
      return call("get", "read", async (db) => {
        const [row] = await db.select(columns).from(events).where(and(eq(events.sessionId, sessionId), eq(events.eventId, eventId)));
        return row ? rowEvent(row) : null;
      });
    },
    head(): Promise<SessionHead> {
      return call("head", "read", async (db) => {
        const [row] = await db
          .select({ lastSeq: sessions.lastSeq, lastRunId: sessions.lastRunId, atSeq: snapshots.atSeq, state: snapshots.state })
          .from(sessions)
          .leftJoin(snapshots, eq(snapshots.sessionId, sessions.id))
          .where(eq(sessions.id, sessionId));
        if (!row) throw new SteamharnessError("storage_failure", `[steamharness] [postgres] session ${sessionId} has no row`);
        return headOf(row);
      });
    },
    putSnapshot(next: SessionSnapshot) {
      return call("putSnapshot", "write", async (db) => {
        const state = validateSnapshot(next);
        await db.transaction(async (tx) => {
          const [head] = await tx.select({ lastSeq: sessions.lastSeq, kept: sessions.snapshotAtSeq }).from(sessions).where(eq(sessions.id, sessionId)).for("update");
          checkSnapshotPosition(next.atSeq, head?.lastSeq ?? 0, head?.kept ?? null);
          const writtenAt = clock.now();
          await tx
            .insert(snapshots)
            .values({ sessionId, atSeq: next.atSeq, state, writtenAt })
            .onConflictDoUpdate({ target: snapshots.sessionId, set: { atSeq: next.atSeq, state, writtenAt } });
          await tx.update(sessions).set({ snapshotAtSeq: next.atSeq }).where(eq(sessions.id, sessionId));
        });
      });
    },
    close() {
      closed = true;
      closing ??= (options.onClose ?? (async () => {}))();
      return closing;
    },
  };
}
