/**
 * The durable session schema (SES-1): one SQLite file per session holds its append-only event
 * log, the latest snapshot and one meta row. Migrations are generated from these tables (drizzle-kit reads them through `drizzle-kit-schema.ts`) with
 * `npx drizzle-kit generate --config drizzle.session.config.ts` into `drizzle/session/`.
 */
import { drizzleOrm, drizzleSqliteCore } from "../shared/drizzle-modules.js";

/** The tables; drizzle is loaded and they are built on first use (PERF-1). */
function define() {
  const { check, index, integer, sqliteTable, text, uniqueIndex } = drizzleSqliteCore();
  const { sql } = drizzleOrm();
  /** The append-only log. `seq` is the rowid, so reading in order and by range needs no extra index. */
  const sessionEvents = sqliteTable(
    "session_events",
    {
      seq: integer("seq").primaryKey(),
      eventId: text("event_id").notNull(),
      runId: text("run_id").notNull(),
      type: text("type").notNull(),
      /** The payload as JSON text. */
      payload: text("payload").notNull(),
      at: integer("at").notNull(),
    },
    (table) => [
      uniqueIndex("session_events_event_id_unique").on(table.eventId),
      // (run_id, seq) so that readRun is an index range scan already in seq order.
      index("session_events_run_seq_idx").on(table.runId, table.seq),
    ],
  );

  /** Snapshots; the store keeps only the row with the highest `at_seq`. */
  const sessionSnapshots = sqliteTable("session_snapshots", {
    atSeq: integer("at_seq").primaryKey(),
    /** The snapshot state as JSON text. */
    state: text("state").notNull(),
    writtenAt: integer("written_at").notNull(),
  });

  /**
   * One row (id 1) with what `head()` returns, kept in step by every write transaction so that the
   * head is read in O(1) without scanning the log. The address is recorded for diagnostics.
   */
  const sessionMeta = sqliteTable(
    "session_meta",
    {
      id: integer("id").primaryKey(),
      lastSeq: integer("last_seq").notNull().default(0),
      lastRunId: text("last_run_id"),
      snapshotAtSeq: integer("snapshot_at_seq"),
      projectId: text("project_id").notNull(),
      conversationId: text("conversation_id"),
      sessionKey: text("session_key").notNull(),
      createdAt: integer("created_at").notNull(),
    },
    (table) => [check("session_meta_single_row", sql`${table.id} = 1`)],
  );
  return { sessionEvents, sessionSnapshots, sessionMeta };
}

/** A session file's tables. */
export type SessionTables = ReturnType<typeof define>;

let tables: SessionTables | undefined;

/**
 * The tables, built on first use with the lazily loaded drizzle (PERF-1).
 *
 * @example
 * const { sessionEvents } = sessionTables();
 */
export function sessionTables(): SessionTables {
  return (tables ??= define());
}
