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
 * that meets a stored id fails that statement as a whole and runs the kernel's row-by-row path
 * (kernel/sql-session-rows.ts: lock the head, insert each event unless its id is stored), so a
 * resumed run re-appending its steps stores nothing twice.
 */
import { sql } from "drizzle-orm";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { EventRow, NewEventRow } from "../../kernel/session-store.js";
import type { SqlSessionTables } from "../../kernel/sql-session-rows.js";
import type { SqlDriver } from "../../kernel/sql-driver.js";
import { driverFault, type PostgresQueryable } from "../postgres-database.js";

/**
 * The common append on PostgreSQL, all ids new: one statement (atomic on its own, one round trip) advances the head by the batch
 * — locking the session's row — and inserts the events numbered from the new head. Why a `sql`
 * template: drizzle has no builder for an insert from `unnest(…) with ordinality` fed by a
 * writable CTE. No `on conflict`: an id already stored fails the whole statement with a unique
 * violation of `agent_session_events_event_id` (nothing written), resolves `null`, and the row-by-row path runs.
 *
 * @example
 * const stored = await postgresFastAppend(driver, 7, rows, Date.now());
 */
export async function postgresFastAppend({ db, tables: { heads: sessions, events } }: SqlDriver<SqlSessionTables>, sessionId: number, rows: NewEventRow[], at: number): Promise<EventRow[] | null> {
  const started = [...rows].reverse().find((row) => row.type === "run_started")?.runId ?? null;
  const n = rows.length;
  try {
    const result = await (db as PostgresQueryable).execute<{ seq: number | string }>(sql`
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
}
