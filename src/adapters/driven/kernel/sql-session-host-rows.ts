/**
 * A conversation's session-host record on the SQL row driver (HOST-1 … HOST-5, HOST-7), written
 * once for both dialects (ARCH-8). SQLite keeps one file per conversation: its rows carry no
 * conversation, `ord` and `seq` are AUTOINCREMENT and flags are 0/1. PostgreSQL keeps every
 * conversation in one set of tables keyed by conversation id; the conversation's record row holds
 * the task-order and command-seq counters, and new tasks queue on its lock. Every read-then-write
 * is one driver transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: the rows it decides on held FOR
 * UPDATE), so two processes never both act on the same state.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import { ACTIVE_TASK_STATUSES } from "../../../domain/session-host/host-state.js";
import type { SessionHostRows, TaskQuery } from "./session-host-store.js";
import type { HostTaskRow, taskColumns } from "./session-host-rows.js";
import { then, type Sql, type SqlDriver, type SqlStatement, type SqlSteps } from "./sql-driver.js";

const ACTIVE = [...ACTIVE_TASK_STATUSES];
type Param<P> = (name: keyof P & string) => Sql;
type Scope = { conversationId: string };

/** The rows of this conversation: PostgreSQL's carry it, SQLite's file is the conversation. */
const scoped = (on: SqlDriver, table: Sql, param: Param<Scope>) => (on.dialect === "postgres" ? on.ops.eq(table.conversationId, param("conversationId")) : undefined);
/** A flag as the dialect stores it (better-sqlite3 binds no booleans). */
const flag = (on: SqlDriver, value: boolean) => (on.dialect === "sqlite" ? Number(value) : value);
const taskWhere = (on: SqlDriver, param: Param<Scope & { taskId: string }>) => on.ops.and(scoped(on, on.tables.hostTasks, param), on.ops.eq(on.tables.hostTasks.taskId, param("taskId")));

// What a turn asks at every step and the lease holder's inbox every poll (HOST-1, issue 45): SQLite prepares each once per connection.
const TASKS: SqlStatement<Scope> = { mode: "all", build: (on, param) => on.db.select().from(on.tables.hostTasks).where(scoped(on, on.tables.hostTasks, param)).orderBy(on.ops.asc(on.tables.hostTasks.ord)) };
const TASK: SqlStatement<Scope & { taskId: string }> = { mode: "get", build: (on, param) => on.db.select().from(on.tables.hostTasks).where(taskWhere(on, param)) };
const LOCK_TASK: SqlStatement<Scope & { taskId: string }> = {
  mode: "get",
  build: (on, param) => on.forUpdate(on.db.select({ status: on.tables.hostTasks.status, cancelRequested: on.tables.hostTasks.cancelRequested }).from(on.tables.hostTasks).where(taskWhere(on, param))),
};
/**
 * UI-2: one statement per query shape (the shapes are the callers' few, so each is prepared once):
 * the states are part of the statement, the run id and the conversation are parameters; `last`
 * reads the newest rows first (the order index backwards) and is put back in submission order.
 */
const FOUND = new Map<string, SqlStatement<Scope & { runId?: string }>>();
function found({ status, runId, last }: TaskQuery): SqlStatement<Scope & { runId?: string }> {
  const shape = `${status?.join()} ${runId === undefined} ${last}`;
  if (!FOUND.has(shape)) {
    FOUND.set(shape, {
      mode: "all",
      build: (on, param) => {
        const { hostTasks: tasks } = on.tables;
        const where = on.ops.and(scoped(on, tasks, param), status && on.ops.inArray(tasks.status, [...status]), runId === undefined ? undefined : on.ops.eq(tasks.runId, param("runId")));
        const query = on.db.select().from(tasks).where(where);
        return last === undefined ? query.orderBy(on.ops.asc(tasks.ord)) : query.orderBy(on.ops.desc(tasks.ord)).limit(last);
      },
    });
  }
  return FOUND.get(shape)!;
}
const STEERS: SqlStatement<Scope & { targetId: number; afterOrder: number }> = {
  mode: "all",
  build: (on, param) => {
    const { hostTasks: tasks } = on.tables;
    const { and, asc, eq, gt } = on.ops;
    const where = and(scoped(on, tasks, param), eq(tasks.steer, flag(on, true)), eq(tasks.status, "queued"), eq(tasks.targetId, param("targetId")), gt(tasks.ord, param("afterOrder")), eq(tasks.cancelRequested, flag(on, false)));
    return on.db.select().from(tasks).where(where).orderBy(asc(tasks.ord));
  },
};
// A task's insert and moves, prepared once like the reads (a build and a SQLite parse per call cost ~0.4 ms each).
type TaskInsert = Scope & ReturnType<typeof taskColumns> & { ord?: number; updatedAt: number };
const INSERT_TASK: SqlStatement<TaskInsert> = {
  mode: "get",
  build: ({ db, dialect, tables: { hostTasks: tasks } }, param) => {
    const columns = ["taskId", "runId", "targetId", "prompt", "input", "status", "detail", "steer", "updatedAt", ...(dialect === "postgres" ? ["conversationId", "ord"] : [])] as const;
    return db.insert(tasks).values(Object.fromEntries(columns.map((column) => [column, param(column as keyof TaskInsert & string)]))).returning();
  },
};
const MOVES = new Map<string, SqlStatement<Scope & { taskId: string }>>();
function moveOf(columns: string[]): SqlStatement<Scope & { taskId: string }> {
  const shape = columns.join();
  if (!MOVES.has(shape)) {
    const set = (param: Param<Record<string, unknown>>) => Object.fromEntries([...columns, "updatedAt"].map((column) => [column, param(column)]));
    MOVES.set(shape, { mode: "run", build: (on, param) => on.db.update(on.tables.hostTasks).set(set(param as Param<Record<string, unknown>>)).where(taskWhere(on, param)) });
  }
  return MOVES.get(shape)!;
}
const PENDING: SqlStatement<Scope & { afterSeq: number }> = {
  mode: "all",
  build: (on, param) => {
    const { hostCommands: commands } = on.tables;
    const { and, asc, eq, gt } = on.ops;
    return on.db.select({ seq: commands.seq, command: commands.command }).from(commands).where(and(scoped(on, commands, param), gt(commands.seq, param("afterSeq")), eq(commands.status, "pending"))).orderBy(asc(commands.seq));
  },
};
const ENQUEUE: SqlStatement<Scope & { seq?: number; command: string; createdAt: number }> = {
  mode: "get",
  build: ({ db, dialect, tables: { hostCommands: commands } }, param) =>
    db.insert(commands).values({ ...(dialect === "postgres" ? { conversationId: param("conversationId"), seq: param("seq") } : {}), command: param("command"), status: "pending", createdAt: param("createdAt") }).returning({ seq: commands.seq }),
};

/**
 * The next value of one of the record's counters (PostgreSQL), holding the record's row until the
 * transaction ends; undefined on SQLite, whose AUTOINCREMENT numbers the row.
 */
function* next(tx: SqlDriver, conversationId: string, counter: "nextTaskOrder" | "nextCommandSeq"): SqlSteps<number | undefined> {
  if (tx.dialect === "sqlite") return undefined;
  const { hostRecords } = tx.tables;
  const { eq, sql } = tx.ops;
  const column = hostRecords[counter];
  const row = yield tx.get(tx.db.update(hostRecords).set({ [counter]: sql`${column} + 1` }).where(eq(hostRecords.conversationId, conversationId)).returning({ taken: sql`${column} - 1` }));
  if (!row) throw new SteamharnessError("not_found", `no session host record for conversation ${conversationId}`);
  return Number(row.taken);
}

/**
 * The kernel's host rows of one conversation on `driver` (its tables: the dialect's host tables;
 * on PostgreSQL the conversation's record must exist); `close` releases the family's handles.
 *
 * @example
 * const store = createSessionHostStore(sqlSessionHostRows(driver, "conv-1", () => client.close()), sqliteCall({ closed: false }));
 */
export function sqlSessionHostRows(driver: SqlDriver, conversationId: string, close: () => void): SessionHostRows {
  const { db, ops, tables } = driver;
  const { hostRecords, hostTasks: tasks, hostContexts: contexts, hostSettings: settings, hostCommands: commands, hostTurnItems: turnItems } = tables;
  const value = () => conversationId;
  const where = (table: Sql, ...conditions: Sql[]) => ops.and(scoped(driver, table, value), ...conditions);
  /** The conversation's own columns of a new row, and the key an upsert conflicts on. */
  const own = driver.dialect === "postgres" ? { conversationId } : {};
  const key = (table: Sql, column: Sql) => (driver.dialect === "postgres" ? [table.conversationId, column] : [column]);
  const now = () => driver.clock.now();
  return {
    tasks: () => driver.execute(TASKS, { conversationId }),
    findTasks: (query) => then(driver.execute(found(query), { conversationId, ...(query.runId === undefined ? {} : { runId: query.runId }) }), (rows: HostTaskRow[]) => (query.last === undefined ? rows : rows.reverse())),
    task: (taskId) => driver.execute(TASK, { conversationId, taskId }),
    queuedSteers: (targetId, afterOrder) => driver.execute(STEERS, { conversationId, targetId, afterOrder }),
    insertTask: (columns) =>
      driver.transaction(function* (tx) {
        // PostgreSQL: the record's row lock first, so two inserts of one task id queue here and the second finds the first.
        if (tx.dialect === "postgres" && !(yield tx.get(tx.forUpdate(tx.db.select({ id: hostRecords.conversationId }).from(hostRecords).where(ops.eq(hostRecords.conversationId, conversationId)))))) {
          throw new SteamharnessError("not_found", `no session host record for conversation ${conversationId}`);
        }
        const existing = yield tx.execute(TASK, { conversationId, taskId: columns.taskId });
        if (existing) return { row: existing, created: false };
        const ord = yield* next(tx, conversationId, "nextTaskOrder");
        const row = yield tx.execute(INSERT_TASK, { conversationId, ...(ord === undefined ? {} : { ord }), ...columns, steer: flag(tx, columns.steer) as boolean, updatedAt: now() });
        return { row, created: true };
      }),
    moveTask: (taskId, decide) =>
      driver.transaction(function* (tx) {
        const move = decide(yield tx.execute(LOCK_TASK, { conversationId, taskId }));
        if (move === null) return false;
        yield tx.execute(moveOf(Object.keys(move)), { conversationId, taskId, ...move, updatedAt: now() });
        return true;
      }),
    markActive: (mark, taskIds) =>
      driver.transaction(function* (tx) {
        const { asc, eq, inArray } = tx.ops;
        const filter = where(tasks, inArray(tasks.status, ACTIVE), mark === "cancelled" ? eq(tasks.cancelRequested, flag(tx, true)) : taskIds === undefined ? undefined : inArray(tasks.taskId, [...taskIds]));
        const ids = ((yield tx.all(tx.forUpdate(tx.db.select({ taskId: tasks.taskId }).from(tasks).where(filter).orderBy(asc(tasks.ord))))) as Array<{ taskId: string }>).map((row) => row.taskId);
        const set = mark === "cancelled" ? { status: "cancelled" } : { cancelRequested: flag(tx, true) };
        if (ids.length > 0) yield tx.run(tx.db.update(tasks).set({ ...set, updatedAt: now() }).where(where(tasks, inArray(tasks.taskId, ids))));
        return ids;
      }),
    contexts: () => driver.all(db.select().from(contexts).where(where(contexts)).orderBy(ops.asc(contexts.targetId))),
    putContext: (context) => then(driver.run(db.insert(contexts).values({ ...own, ...context }).onConflictDoNothing()), () => undefined),
    getSetting: (name) => then(driver.get(db.select({ value: settings.value }).from(settings).where(where(settings, ops.eq(settings.key, name)))), (row) => row?.value),
    setSetting: (name, text) => then(driver.run(db.insert(settings).values({ ...own, key: name, value: text }).onConflictDoUpdate({ target: key(settings, settings.key), set: { value: text } })), () => undefined),
    putTurnItems: (runId, items) =>
      then(driver.run(db.insert(turnItems).values({ ...own, runId, items, updatedAt: now() }).onConflictDoUpdate({ target: key(turnItems, turnItems.runId), set: { items, updatedAt: now() } })), () => undefined),
    getTurnItems: (runId) => then(driver.get(db.select({ items: turnItems.items }).from(turnItems).where(where(turnItems, ops.eq(turnItems.runId, runId)))), (row) => row?.items),
    // SQLite: one prepared insert numbered by AUTOINCREMENT; PostgreSQL: the record's counter first, in one transaction.
    enqueue: (command) =>
      driver.dialect === "sqlite"
        ? then(driver.execute(ENQUEUE, { conversationId, command, createdAt: now() }), (row) => row.seq)
        : driver.transaction(function* (tx) {
            const seq = yield* next(tx, conversationId, "nextCommandSeq");
            yield tx.execute(ENQUEUE, { conversationId, seq, command, createdAt: now() });
            return seq!;
          }),
    pending: (afterSeq) => driver.execute(PENDING, { conversationId, afterSeq }),
    answer: (seq, columns) => then(driver.run(db.update(commands).set(columns).where(where(commands, ops.eq(commands.seq, seq)))), () => undefined),
    outcome: (seq) => driver.get(db.select({ status: commands.status, outcome: commands.outcome }).from(commands).where(where(commands, ops.eq(commands.seq, seq)))),
    close,
  };
}
