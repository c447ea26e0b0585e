import type { SQL } from "drizzle-orm";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import type { SQLiteColumn, SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import type Database from "better-sqlite3";
import type { EventRow } from "../../kernel/session-store.js";
import { drizzleOrm, drizzleSqliteCore } from "../shared/drizzle-modules.js";
import { sessionTables } from "./session-schema.js";

/** The drizzle database of one session file. */
export type SessionDb = BetterSQLite3Database;

/** What `head()` reads: the meta row and the kept snapshot, if any. */
export interface HeadRow {
  lastSeq: number;
  lastRunId: string | null;
  atSeq: number | null;
  state: string | null;
}

const selectList = (fields: Record<string, SQLiteColumn>): SQL => {
  const { sql } = drizzleOrm();
  return sql.join(Object.entries(fields).map(([key, column]) => sql`${column} AS ${sql.identifier(key)}`), sql`, `);
};

/*
 * Resuming a paused session in a fresh process runs exactly two reads: the head and the events
 * after the snapshot. They are drizzle `sql` templates over the schema's tables and columns rather
 * than select builders because the builder's first use in a process costs several milliseconds
 * of CPU (measured: ~6–17 ms for these two reads on a loaded 2-core machine, ~2–3 ms as templates,
 * bench/durable-store.bench.ts (d)), and that first use is exactly the read being timed.
 */

/**
 * The head read: one primary-key lookup of the meta row joined to the kept snapshot by its key.
 *
 * @example
 * const row = db.get<HeadRow>(headQuery());
 */
export function headQuery(): SQL {
  const { sql } = drizzleOrm();
  const { sessionMeta, sessionSnapshots } = sessionTables();
  const fields = { lastSeq: sessionMeta.lastSeq, lastRunId: sessionMeta.lastRunId, atSeq: sessionSnapshots.atSeq, state: sessionSnapshots.state };
  return sql`SELECT ${selectList(fields)} FROM ${sessionMeta} LEFT JOIN ${sessionSnapshots} ON ${sessionSnapshots.atSeq} = ${sessionMeta.snapshotAtSeq} WHERE ${sessionMeta.id} = 1`;
}

/**
 * The events with `afterSeq < seq <= throughSeq` (whose type is in the JSON array `types`, when
 * given) in seq order or newest first, at most `limit` (-1: all): a rowid range.
 *
 * @example
 * const rows = db.all<EventRow>(eventsAfterQuery(0, -1));
 */
export function eventsAfterQuery(afterSeq: unknown, limit: unknown, newestFirst = false, types?: unknown, throughSeq: unknown = Number.MAX_SAFE_INTEGER): SQL {
  const { asc, desc, getTableColumns, sql } = drizzleOrm();
  const { sessionEvents } = sessionTables();
  const columns = selectList(getTableColumns(sessionEvents));
  const order = newestFirst ? desc(sessionEvents.seq) : asc(sessionEvents.seq);
  const ofTypes = types === undefined ? sql`` : sql` AND ${sessionEvents.type} IN (SELECT value FROM json_each(${types}))`;
  return sql`SELECT ${columns} FROM ${sessionEvents} WHERE ${sessionEvents.seq} > ${afterSeq} AND ${sessionEvents.seq} <= ${throughSeq}${ofTypes} ORDER BY ${order} LIMIT ${limit}`;
}

/** A fork's pointer as the meta row keeps it (FORK-1); all null for a session that is no fork. */
export interface BaseRow {
  projectId: string | null;
  conversationId: string | null;
  sessionKey: string | null;
  seq: number | null;
}

/**
 * The meta row's fork pointer: one primary-key lookup.
 *
 * @example
 * const row = db.get<BaseRow>(baseQuery());
 */
export function baseQuery(): SQL {
  const { sql } = drizzleOrm();
  const { sessionMeta } = sessionTables();
  const fields = { projectId: sessionMeta.baseProjectId, conversationId: sessionMeta.baseConversationId, sessionKey: sessionMeta.baseSessionKey, seq: sessionMeta.baseSeq };
  return sql`SELECT ${selectList(fields)} FROM ${sessionMeta} WHERE ${sessionMeta.id} = 1`;
}

let dialect: SQLiteSyncDialect | undefined;
/**
 * Query texts by name. Why (issue 46, FORK-1: a fork opens its parent and writes a new file; issue
 * 45: a new chat opens new files): every connection runs the same statements, and drizzle building
 * a query's text costs more CPU than SQLite compiling it, so drizzle builds each text once per
 * process and each connection only prepares it.
 */
const texts = new Map<string, { sql: string; params: unknown[] }>();

/**
 * The statement named `name`, compiled once per process from a drizzle template or query builder
 * (`template` runs only the first time) and prepared on `client` at its first run; placeholders
 * bound by name.
 *
 * @example
 * const meta = compileSessionQuery(client, "meta", () => metaQuery());
 * meta.get<MetaRow>();
 */
export function compileSessionQuery(client: Database.Database, name: string, template: () => SQL | { toSQL(): { sql: string; params: unknown[] } }) {
  const { fillPlaceholders } = drizzleOrm();
  let prepared: { statement: Database.Statement; params: unknown[] } | undefined;
  const bound = (values: Record<string, unknown> = {}) => {
    if (!prepared) {
      const built = texts.has(name) ? null : template();
      if (built) texts.set(name, "toSQL" in built ? built.toSQL() : (dialect ??= new (drizzleSqliteCore().SQLiteSyncDialect)()).sqlToQuery(built));
      const { sql, params } = texts.get(name)!;
      prepared = { statement: client.prepare(sql), params };
    }
    return { statement: prepared.statement, args: fillPlaceholders(prepared.params, values) };
  };
  return {
    get: <T>(values?: Record<string, unknown>) => (({ statement, args }) => statement.get(...args) as T | undefined)(bound(values)),
    all: <T>(values?: Record<string, unknown>) => (({ statement, args }) => statement.all(...args) as T[])(bound(values)),
    run: (values?: Record<string, unknown>) => (({ statement, args }) => statement.run(...args))(bound(values)),
  };
}

/**
 * The reads every run makes (head, events after a seq, with or without a type filter), each
 * compiled once per connection from the drizzle templates above on first use and then reused:
 * drizzle's `db.all(sql…)` would compile and prepare the statement again on every call. Why the
 * client directly: drizzle runs templates but does not keep them prepared.
 *
 * @example
 * const reads = prepareSessionReads(client);
 * const head = reads.head();
 */
export function prepareSessionReads(client: Database.Database) {
  const { sql } = drizzleOrm();
  /** By shape: 0 oldest first, 1 newest first; +2 with a type filter. */
  const after = [0, 1, 2, 3].map((shape) =>
    compileSessionQuery(client, `after-${shape}`, () => eventsAfterQuery(sql.placeholder("afterSeq"), sql.placeholder("limit"), shape % 2 === 1, shape >= 2 ? sql.placeholder("types") : undefined, sql.placeholder("throughSeq"))),
  );
  const head = compileSessionQuery(client, "head", headQuery);
  return {
    head: () => head.get<HeadRow>(),
    base: () => compileSessionQuery(client, "base", baseQuery).get<BaseRow>(),
    eventsAfter: (from: number, max: number, newestFirst: boolean, types?: readonly string[], through = Number.MAX_SAFE_INTEGER) =>
      after[Number(newestFirst) + 2 * Number(types !== undefined)]!.all<EventRow>({ afterSeq: from, limit: max, types: JSON.stringify(types ?? []), throughSeq: through }),
  };
}

/**
 * The statements of an append — read the meta row, insert an event, advance the meta row — built
 * with drizzle's query builders and compiled once to better-sqlite3 statements, like the reads
 * above: an append runs them inside one better-sqlite3 transaction without drizzle's per-call
 * query object and transaction wrapper (measured: ~40 µs of a ~170 µs three-event append).
 *
 * @example
 * const writes = prepareSessionWrites(drizzle({ client }), client);
 * writes.insert.run({ seq: 1, eventId: "run-1/start", runId: "run-1", type: "run_started", payload: "{}", at: Date.now() });
 */
export function prepareSessionWrites(db: SessionDb, client: Database.Database) {
  const { eq, sql } = drizzleOrm();
  const { sessionEvents, sessionMeta } = sessionTables();
  return {
    meta: compileSessionQuery(client, "meta", metaQuery),
    insert: compileSessionQuery(client, "insert", () =>
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
        .onConflictDoNothing({ target: sessionEvents.eventId }),
    ),
    advance: compileSessionQuery(client, "advance", () =>
      db
        .update(sessionMeta)
        .set({ lastSeq: sql`${sql.placeholder("lastSeq")}`, lastRunId: sql`coalesce(${sql.placeholder("lastRunId")}, ${sessionMeta.lastRunId})` })
        .where(eq(sessionMeta.id, 1)),
    ),
  };
}

/** The meta row as {@link metaQuery} reads it. */
export type MetaRow = ReturnType<typeof sessionTables>["sessionMeta"]["$inferSelect"];

/** `SELECT <every column of table> FROM table <rest>` with the columns under their field names. */
function rowsQuery(table: "sessionMeta" | "sessionEvents", rest: (sql: ReturnType<typeof drizzleOrm>["sql"]) => SQL): SQL {
  const { getTableColumns, sql } = drizzleOrm();
  return sql`SELECT ${selectList(getTableColumns(sessionTables()[table]))} FROM ${sessionTables()[table]} ${rest(sql)}`;
}

/**
 * The meta row: a primary-key lookup.
 *
 * @example
 * const row = db.get<MetaRow>(metaQuery());
 */
export const metaQuery = (): SQL => rowsQuery("sessionMeta", (sql) => sql`WHERE ${sessionTables().sessionMeta.id} = 1`);

/**
 * The event of an event id (`eventId` placeholder): a unique-index lookup.
 *
 * @example
 * const row = db.get<EventRow>(byEventIdQuery());
 */
export const byEventIdQuery = (): SQL => rowsQuery("sessionEvents", (sql) => sql`WHERE ${sessionTables().sessionEvents.eventId} = ${sql.placeholder("eventId")}`);

/**
 * A run's events in seq order (`runId` placeholder): an index range already in seq order.
 *
 * @example
 * const rows = db.all<EventRow>(byRunQuery());
 */
export const byRunQuery = (): SQL => rowsQuery("sessionEvents", (sql) => sql`WHERE ${sessionTables().sessionEvents.runId} = ${sql.placeholder("runId")} ORDER BY ${sessionTables().sessionEvents.seq}`);

/**
 * The other statements, each compiled on first use: a process that only reads a paused session's
 * head pays for the statements it runs, not for all of them.
 *
 * @example
 * const statements = prepareSessionStatements(client);
 * statements.byRun.all<EventRow>({ runId: "run-1" });
 */
export function prepareSessionStatements(client: Database.Database) {
  return { meta: compileSessionQuery(client, "meta", metaQuery), byEventId: compileSessionQuery(client, "by-event-id", byEventIdQuery), byRun: compileSessionQuery(client, "by-run", byRunQuery) };
}
