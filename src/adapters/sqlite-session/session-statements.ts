import { asc, eq, gt, sql } from "drizzle-orm";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { sessionEvents, sessionMeta, sessionSnapshots } from "./session-schema.js";

/** The drizzle database of one session file. */
export type SessionDb = BetterSQLite3Database;

/**
 * The hot statements, each prepared by drizzle on first use: a process that only reads a paused
 * session's head pays for the statements it runs, not for all of them.
 *
 * @example
 * const statements = prepareSessionStatements(drizzle({ client }));
 * statements.byRun.all({ runId: "run-1" });
 */
export function prepareSessionStatements(db: SessionDb) {
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
