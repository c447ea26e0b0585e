/**
 * One session's log on the SQL row driver (SES-1, SES-3), written once for both dialects (ARCH-8).
 * SQLite keeps one file per session: its head is the file's one meta row (id 1) and its rows
 * carry no session. PostgreSQL keeps every session in one set of tables: its head is the
 * session's row in `agent_sessions`, and its rows carry the session's id. Each hot statement is a
 * {@link SqlStatement}, built once (SQLite: once per process) and prepared per connection. A
 * family's store is one call, {@link sqlSessionStore}: the rows and the kernel's store over them.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import type { Clock } from "../../../ports/clock.js";
import type { SessionAddress } from "../../../ports/session-store.js";
import type { SessionForkRequest } from "../../../ports/session-backend.js";
import { createSessionStore, type EventRow, type NewEventRow, type OwnSessionStore, type SessionBase, type SessionRows } from "./session-store.js";
import type { Awaitable, StoreCall } from "./store-call.js";
import { then, type Sql, type SqlDriver, type SqlStatement, type SqlSteps } from "./sql-driver.js";

/** A dialect's session tables under the names the rows use. */
export interface SqlSessionTables {
  /** The head row (SQLite: `session_meta`; PostgreSQL: `agent_sessions`): `id`, `lastSeq`, `lastRunId`, `snapshotAtSeq`. */
  heads: Sql;
  events: Sql;
  snapshots: Sql;
}

type On = SqlDriver<SqlSessionTables>;
type Id = { sessionId: number };
type Param<P> = (name: keyof P & string) => Sql;

/** The rows of this session: PostgreSQL's carry it, SQLite's file is the session. */
const ofSession = (on: On, table: Sql, param: Param<Id>) => (on.dialect === "postgres" ? on.ops.eq(table.sessionId, param("sessionId")) : undefined);
const columns = ({ tables: { events } }: On) => ({ seq: events.seq, eventId: events.eventId, runId: events.runId, type: events.type, payload: events.payload, at: events.at });
const head = (on: On, param: Param<Id>) => on.ops.eq(on.tables.heads.id, param("sessionId"));

/**
 * `SELECT fields FROM table [LEFT JOIN …] WHERE … [ORDER BY …] [LIMIT …]`: PostgreSQL's query
 * builder (prepared), SQLite's `sql` template with the fields under their names. Why a template on
 * SQLite: a query builder's first use in a process costs milliseconds of CPU (measured: ~4 ms to
 * build and prepare the head read, ~1 ms as a template), and resuming a paused session in a
 * fresh process is exactly that first use (bench/durable.bench.ts D).
 */
function select(on: On, fields: Record<string, Sql>, table: Sql, parts: { join?: [Sql, Sql]; where: Sql; orderBy?: Sql; limit?: Sql; lock?: true }): Sql {
  const { sql } = on.ops;
  if (on.dialect === "postgres") {
    const joined = parts.join ? on.db.select(fields).from(table).leftJoin(...parts.join) : on.db.select(fields).from(table);
    const ordered = parts.orderBy ? joined.where(parts.where).orderBy(parts.orderBy) : joined.where(parts.where);
    const limited = parts.limit === undefined ? ordered : ordered.limit(parts.limit);
    return parts.lock ? on.forUpdate(limited) : limited;
  }
  const list = sql.join(Object.entries(fields).map(([key, column]) => sql`${column} AS ${sql.identifier(key)}`), sql`, `);
  const join = parts.join ? sql` LEFT JOIN ${parts.join[0]} ON ${parts.join[1]}` : sql``;
  return sql`SELECT ${list} FROM ${table}${join} WHERE ${parts.where}${parts.orderBy ? sql` ORDER BY ${parts.orderBy}` : sql``}${parts.limit === undefined ? sql`` : sql` LIMIT ${parts.limit}`}`;
}

const HEAD: SqlStatement<Id> = {
  mode: "get",
  build: (on, param) => {
    const { heads, snapshots } = on.tables;
    // SQLite keeps one snapshot row, PostgreSQL one per session: either way the one the head names.
    const kept = on.ops.and(on.dialect === "postgres" ? on.ops.eq(snapshots.sessionId, heads.id) : undefined, on.ops.eq(snapshots.atSeq, heads.snapshotAtSeq));
    return select(on, { lastSeq: heads.lastSeq, lastRunId: heads.lastRunId, atSeq: snapshots.atSeq, state: snapshots.state }, heads, { join: [snapshots, kept], where: head(on, param) });
  },
};
const LOCK_HEAD: SqlStatement<Id> = { mode: "get", build: (on, param) => select(on, { lastSeq: on.tables.heads.lastSeq, snapshotAtSeq: on.tables.heads.snapshotAtSeq }, on.tables.heads, { where: head(on, param), lock: true }) };
const BY_ID: SqlStatement<Id & { eventId: string }> = {
  mode: "get",
  build: (on, param) => select(on, columns(on), on.tables.events, { where: on.ops.and(ofSession(on, on.tables.events, param), on.ops.eq(on.tables.events.eventId, param("eventId"))) }),
};
const BY_RUN: SqlStatement<Id & { runId: string }> = {
  mode: "all",
  build: (on, param) => {
    const { events } = on.tables;
    return select(on, columns(on), events, { where: on.ops.and(ofSession(on, events, param), on.ops.eq(events.runId, param("runId"))), orderBy: on.ops.asc(events.seq) });
  },
};
type AfterParams = Id & { afterSeq: number; throughSeq: number; limit: number | null; types: unknown };
/** Events after a seq (a key range), by shape: 0 oldest first, 1 newest first; +2 of some types (SQLite: a JSON array; PostgreSQL: an array). */
const AFTER: SqlStatement<AfterParams>[] = [0, 1, 2, 3].map((shape) => ({
  mode: "all",
  build: (on, param) => {
    const { events } = on.tables;
    const { and, asc, desc, gt, lte, sql } = on.ops;
    const ofTypes = shape < 2 ? undefined : on.dialect === "sqlite" ? sql`${events.type} IN (SELECT value FROM json_each(${param("types")}))` : sql`${events.type} = any(${param("types")})`;
    const where = and(ofSession(on, events, param), gt(events.seq, param("afterSeq")), lte(events.seq, param("throughSeq")), ofTypes);
    return select(on, columns(on), events, { where, orderBy: shape % 2 === 1 ? desc(events.seq) : asc(events.seq), limit: param("limit") });
  },
}));
const INSERT: SqlStatement<Id & Pick<EventRow, keyof EventRow>> = {
  mode: "run",
  build: (on, param) => {
    const { events } = on.tables;
    const row = { ...(on.dialect === "postgres" ? { sessionId: param("sessionId") } : {}), seq: param("seq"), eventId: param("eventId"), runId: param("runId"), type: param("type"), payload: param("payload"), at: param("at") };
    // A known event id is skipped by the unique index, so no lookup precedes each insert.
    return on.db.insert(events).values(row).onConflictDoNothing({ target: on.dialect === "postgres" ? [events.sessionId, events.eventId] : events.eventId });
  },
};
const ADVANCE: SqlStatement<Id & { lastSeq: number; lastRunId: string | null }> = {
  mode: "run",
  build: (on, param) => {
    const { heads } = on.tables;
    const runId = on.dialect === "postgres" ? on.ops.sql`cast(${param("lastRunId")} as text)` : param("lastRunId");
    return on.db.update(heads).set({ lastSeq: on.ops.sql`${param("lastSeq")}`, lastRunId: on.ops.sql`coalesce(${runId}, ${heads.lastRunId})` }).where(head(on, param));
  },
};

type HeadRow = { lastSeq: number; lastRunId: string | null; atSeq: number | null; state: string | null };

/** Keeping only a new snapshot: the old one deleted, the new one written, the head naming it. */
const KEEP_SNAPSHOT: SqlStatement<Id & { atSeq: number; state: string; writtenAt: number }>[] = [
  { mode: "run", build: (on, param) => on.db.delete(on.tables.snapshots).where(ofSession(on, on.tables.snapshots, param)) },
  {
    mode: "run",
    build: (on, param) => on.db.insert(on.tables.snapshots).values({ ...(on.dialect === "postgres" ? { sessionId: param("sessionId") } : {}), atSeq: param("atSeq"), state: param("state"), writtenAt: param("writtenAt") }),
  },
  { mode: "run", build: (on, param) => on.db.update(on.tables.heads).set({ snapshotAtSeq: on.ops.sql`${param("atSeq")}` }).where(head(on, param)) },
];

/** The fork pointer a head row keeps (FORK-1): the parent's address columns and seq, all null for a session that is no fork. */
type BaseColumns = { baseProjectId: string | null; baseConversationId: string | null; baseSessionKey: string | null; baseSeq: number | string | null };
const BASE_COLUMNS = ["baseProjectId", "baseConversationId", "baseSessionKey", "baseSeq"] as const;
const HEAD_COLUMNS = ["projectId", "conversationId", "sessionKey", "createdAt", "lastSeq", "lastRunId", "snapshotAtSeq", ...BASE_COLUMNS] as const;

/** SQLite's fork pointer, read from its head row on open (PostgreSQL's backend reads it with the session's id). */
const BASE: SqlStatement<Id> = {
  mode: "get",
  // A template, as the other reads on SQLite: every open reads it (see `select`).
  build: (on, param) => select(on, Object.fromEntries(BASE_COLUMNS.map((column) => [column, on.tables.heads[column]])), on.tables.heads, { where: head(on, param) }),
};
/** A new head row: SQLite's one meta row (id 1), PostgreSQL's session row (`scope`: its address key); nothing when it exists. */
const INSERT_HEAD: SqlStatement<Record<string, unknown>> = {
  mode: "get",
  build: ({ db, dialect, tables: { heads } }, param) =>
    db.insert(heads).values({ ...(dialect === "sqlite" ? { id: 1 } : { scope: param("scope") }), ...Object.fromEntries(HEAD_COLUMNS.map((column) => [column, param(column)])) }).onConflictDoNothing().returning({ id: heads.id }),
};

/**
 * The stored address key of a session on PostgreSQL: `""` outside a conversation, `"c:<id>"` inside one.
 *
 * @example
 * sessionScope({ projectId: "p", conversationId: "c1", sessionKey: "agent" }) // "c:c1"
 */
export function sessionScope(address: SessionAddress): string {
  return address.conversationId === undefined ? "" : `c:${address.conversationId}`;
}

/**
 * The fork pointer of a head row's columns, or `null`.
 *
 * @example
 * baseOf({ baseProjectId: "p", baseConversationId: null, baseSessionKey: "agent", baseSeq: 12 }) // { address: { projectId: "p", sessionKey: "agent" }, seq: 12 }
 */
export function baseOf(row: BaseColumns | undefined): SessionBase | null {
  if (row?.baseSeq == null || row.baseProjectId === null || row.baseSessionKey === null) return null;
  return { address: { projectId: row.baseProjectId, sessionKey: row.baseSessionKey, ...(row.baseConversationId === null ? {} : { conversationId: row.baseConversationId }) }, seq: Number(row.baseSeq) };
}

/**
 * Writes a session's head row on `tx` (a new session's, a fork's with its pointer and the head of
 * its prefix, or SQLite's rebuilt one) and resolves its id, or undefined when the session exists.
 *
 * @example
 * const id = await newHead(driver, address, Date.now());
 */
export function newHead(tx: On, address: SessionAddress, now: number, head: { base?: SessionBase; lastSeq?: number; lastRunId?: string | null; snapshotAtSeq?: number | null } = {}): Awaitable<number | undefined> {
  const { base } = head;
  const row = tx.execute(INSERT_HEAD, {
    ...(tx.dialect === "postgres" ? { scope: sessionScope(address) } : {}),
    ...{ projectId: address.projectId, conversationId: address.conversationId ?? null, sessionKey: address.sessionKey, createdAt: now, lastSeq: head.lastSeq ?? 0, lastRunId: head.lastRunId ?? null, snapshotAtSeq: head.snapshotAtSeq ?? null },
    ...{ baseProjectId: base?.address.projectId ?? null, baseConversationId: base?.address.conversationId ?? null, baseSessionKey: base?.address.sessionKey ?? null, baseSeq: base?.seq ?? null },
  });
  return then(row, (inserted: { id: number | string } | undefined) => (inserted === undefined ? undefined : Number(inserted.id)));
}

/**
 * The fork of the session-backend port's `forkLog` in `tx` (FORK-1), for both dialects: `to`'s
 * head row (its pointer to `from` at `throughSeq`, the head of the prefix) and the `append`
 * events numbered on from the point; `conflict` when `to` exists. Nothing of the prefix is copied.
 *
 * @example
 * await driver.transaction((tx) => forkSteps(tx, { from, to, throughSeq: 12, lastRunId: "run-3" }, Date.now()));
 */
export function* forkSteps(tx: On, request: SessionForkRequest & { lastRunId: string | null }, now: number): SqlSteps<void> {
  const { from, to, throughSeq, append = [] } = request;
  const id = (yield newHead(tx, to, now, { base: { address: from, seq: throughSeq }, lastSeq: throughSeq, lastRunId: request.lastRunId })) as number | undefined;
  if (id === undefined) throw new SteamharnessError("conflict", `[steamharness] [${tx.dialect}] the fork's session exists already`, { field: "to" });
  yield* appendSteps(tx, id, throughSeq, append.map((event) => ({ eventId: event.eventId, runId: event.runId, type: event.type, payload: JSON.stringify(event.payload) })), now);
}

/** What the store of one session needs besides its rows' statements. */
export interface SqlSessionStoreOptions {
  address: SessionAddress;
  sessionId: number;
  /**
   * Where the store runs its steps. SQLite: its one connection's `driver`, whose steps run
   * synchronously; the store reads its fork pointer from the head row. PostgreSQL: `on` runs a
   * step on the driver that reads (`write` false) or writes, on the connection its lease fences,
   * and `base` is the pointer its row names.
   */
  run: { driver: On } | { on<T>(write: boolean, step: (driver: On) => Awaitable<T>): Awaitable<T>; base: SessionBase | null };
  /** The head when the head row is missing (SQLite: a damaged file, its head rebuilt from the log, and written inside `tx` when `write`); absent: `storage_failure`. */
  noHead?(tx: On, write: boolean): HeadRow;
  /** A family's one-statement append tried first (PostgreSQL); `null` sends the batch to the row-by-row path. */
  fastAppend?(driver: On, sessionId: number, rows: NewEventRow[], at: number): Promise<EventRow[] | null>;
  /** Releases the store's connection (its faults mapped by `call`); absent: nothing to release. */
  close?(): unknown;
  call: StoreCall;
  clock: Clock;
}

/**
 * The events of an append numbered after `lastSeq` in `tx`, row by row: an id already stored
 * keeps its stored row; the head advances to the last new seq and, when the batch starts a run,
 * to that run. Also writes a fork's own first events (FORK-1).
 */
function* appendSteps(tx: On, sessionId: number, lastSeq: number, rows: readonly NewEventRow[], at: number): SqlSteps<{ byId: Map<string, EventRow>; appended: number }> {
  const byId = new Map<string, EventRow>();
  let seq = lastSeq;
  let started: string | null = null;
  for (const row of rows) {
    const stored: EventRow = { ...row, seq: seq + 1, at };
    if ((yield tx.execute(INSERT, { sessionId, ...stored })) === 0) {
      // Already stored earlier: that event, unchanged.
      byId.set(row.eventId, yield tx.execute(BY_ID, { sessionId, eventId: row.eventId }));
      continue;
    }
    seq += 1;
    byId.set(row.eventId, stored);
    if (row.type === "run_started") started = row.runId;
  }
  if (seq > lastSeq) yield tx.execute(ADVANCE, { sessionId, lastSeq: seq, lastRunId: started });
  return { byId, appended: seq - lastSeq };
}

/**
 * The session store of one session on the SQL row driver: the kernel's store over its rows.
 *
 * @example
 * const store = sqlSessionStore({ address, sessionId: 1, run: { driver }, close: async () => client.close(), call, clock });
 */
export function sqlSessionStore(options: SqlSessionStoreOptions): OwnSessionStore {
  const { run } = options;
  if (!("driver" in run)) return createSessionStore({ ...options, rows: sqlSessionRows(options, run.on), family: "postgres", base: run.base });
  const { driver } = run;
  // A fork's pointer is fixed when its file is made, so it is read once, here.
  return createSessionStore({ ...options, rows: sqlSessionRows(options, (_write, step) => step(driver)), family: driver.dialect, base: baseOf(driver.execute(BASE, options) as BaseColumns | undefined) });
}

/** The kernel's session rows of one session on the SQL row driver. */
function sqlSessionRows(options: SqlSessionStoreOptions, on: <T>(write: boolean, step: (driver: On) => Awaitable<T>) => Awaitable<T>): SessionRows {
  const { sessionId } = options;
  const noHead = (tx: On, write: boolean): HeadRow => {
    if (options.noHead) return options.noHead(tx, write);
    throw new SteamharnessError("storage_failure", `[steamharness] [${tx.dialect}] session ${sessionId} has no row`);
  };
  /** The head row, locked until the transaction ends. */
  function* locked(tx: On): SqlSteps<{ lastSeq: number; snapshotAtSeq: number | null }> {
    const row = (yield tx.execute(LOCK_HEAD, { sessionId })) as { lastSeq: number; snapshotAtSeq: number | null } | undefined;
    return row ?? (({ lastSeq, atSeq }) => ({ lastSeq, snapshotAtSeq: atSeq }))(noHead(tx, true));
  }
  // Made once: a closure per call costs an append measurably (tsx names every one).
  const rowByRow = (driver: On, rows: NewEventRow[], at: number) =>
    driver.transaction(function* (tx) {
      return yield* appendSteps(tx, sessionId, (yield* locked(tx)).lastSeq, rows, at);
    });
  return {
    append: (rows, at) =>
      on(true, (driver) =>
        options.fastAppend ? options.fastAppend(driver, sessionId, rows, at).then((fast) => (fast ? { byId: new Map(fast.map((row) => [row.eventId, row])), appended: fast.length } : rowByRow(driver, rows, at))) : rowByRow(driver, rows, at),
      ),
    byRun: (runId) => on(false, (driver) => driver.execute(BY_RUN, { sessionId, runId })),
    after: (afterSeq, { types, limit, newestFirst, throughSeq = Number.MAX_SAFE_INTEGER }) =>
      on(false, (driver) => {
        const typed = types === undefined ? {} : { types: driver.dialect === "sqlite" ? JSON.stringify(types) : [...types] };
        return driver.execute(AFTER[Number(newestFirst) + 2 * Number(types !== undefined)]!, { sessionId, afterSeq, throughSeq, limit: limit ?? (driver.dialect === "sqlite" ? -1 : null), ...typed } as AfterParams);
      }),
    byId: (eventId) => on(false, (driver) => driver.execute(BY_ID, { sessionId, eventId })),
    head: () =>
      on(false, (driver) => {
        return then(driver.execute(HEAD, { sessionId }), (row: HeadRow | undefined) => row ?? noHead(driver, false));
      }),
    putSnapshot: (atSeq, state, check) =>
      on(true, (driver) =>
        driver.transaction(function* (tx) {
          const { lastSeq, snapshotAtSeq } = yield* locked(tx);
          check(lastSeq, snapshotAtSeq);
          for (const statement of KEEP_SNAPSHOT) yield tx.execute(statement, { sessionId, atSeq, state, writtenAt: tx.clock.now() });
        }),
      ),
    close: () => options.call("session close", async () => void (await options.close?.())),
  };
}

/**
 * The reads a run makes, for tests that check their query plans on a dialect.
 *
 * @example
 * const head = SESSION_READS.head.build(driver, (name) => driver.ops.sql.placeholder(name)).toSQL();
 */
export const SESSION_READS = { head: HEAD, byId: BY_ID, byRun: BY_RUN, after: AFTER[0]! };
