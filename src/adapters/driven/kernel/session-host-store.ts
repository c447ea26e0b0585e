/**
 * A conversation's session-host record (HOST-1 … HOST-5, HOST-7) written once on the SQL row
 * driver for both dialects (ARCH-3, ARCH-8): `unavailable` after close, the task-transition rule
 * (a persisted cancel is final), JSON columns as text, and the rows. SQLite keeps one file per
 * conversation: its rows carry no conversation, `ord` and `seq` are AUTOINCREMENT and flags are
 * 0/1. PostgreSQL keeps every conversation in one set of tables keyed by conversation id; the
 * conversation's record row holds the task-order and command-seq counters, and new tasks queue on
 * its lock. Every read-then-write is one driver transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL:
 * the rows it decides on held FOR UPDATE), so two processes never both act on the same state.
 * memory's host record is SQLite's, on an in-memory database.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonObject } from "../../../domain/json.js";
import { ACTIVE_TASK_STATUSES, acceptTaskUpdate, type AgentSessionContextKind, type AgentSessionTaskRecord, type AgentSessionTaskStatus } from "../../../domain/session-host/host-state.js";
import type { AgentSessionHostStore, AgentSessionInboxOutcome } from "../../../ports/session-host-store.js";
import { then, type Sql, type SqlDriver, type SqlStatement, type SqlSteps } from "./sql-driver.js";
import type { Awaitable, StoreCall } from "./store-call.js";

const ACTIVE = [...ACTIVE_TASK_STATUSES];
type Param<P> = (name: keyof P & string) => Sql;
type Scope = { conversationId: string };
type TaskQuery = Parameters<AgentSessionHostStore["findTasks"]>[0];
/** A stored task row (`cancelRequested` and `steer` are 0/1 in SQLite, booleans in PostgreSQL). */
type HostTaskRow = Omit<AgentSessionTaskRecord, "input" | "status" | "detail" | "cancelRequested" | "order"> & { input: string; status: string; detail: string | null; cancelRequested: boolean | number; ord: number };

const json = (value: JsonObject | null): string | null => (value === null ? null : JSON.stringify(value));
const parsed = (text: string | null): JsonObject | null => (text === null ? null : (JSON.parse(text) as JsonObject));
const taskOf = ({ taskId, runId, targetId, prompt, ...row }: HostTaskRow): AgentSessionTaskRecord => ({
  taskId, runId, targetId, prompt, input: parsed(row.input)!, status: row.status as AgentSessionTaskStatus, cancelRequested: Boolean(row.cancelRequested), detail: parsed(row.detail), order: row.ord,
});

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
const TASK_COLUMNS = ["taskId", "runId", "targetId", "prompt", "input", "status", "detail", "steer", "updatedAt"] as const;
const INSERT_TASK: SqlStatement<Record<string, unknown>> = {
  mode: "get",
  build: ({ db, dialect, tables: { hostTasks: tasks } }, param) => db.insert(tasks).values(Object.fromEntries([...TASK_COLUMNS, ...(dialect === "postgres" ? ["conversationId", "ord"] : [])].map((column) => [column, param(column)]))).returning(),
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
 * The host record of one conversation on `driver` (its tables: the dialect's host tables; on
 * PostgreSQL the conversation's record must exist); `call` maps each step's faults
 * (`storage_failure` with `cause`), `close` releases the family's handles, once.
 *
 * @example
 * const store = sqlSessionHostStore(sqliteSqlDriver(db, sessionHostTables(), clock), "", sqliteCall({ closed: false }), () => client.close());
 */
export function sqlSessionHostStore(driver: SqlDriver, conversationId: string, call: StoreCall, close: () => unknown = () => {}): AgentSessionHostStore {
  const { db, ops, tables } = driver;
  const { hostRecords, hostTasks: tasks, hostContexts: contexts, hostSettings: settings, hostCommands: commands, hostTurnItems: turnItems } = tables;
  const where = (table: Sql, ...conditions: Sql[]) => ops.and(scoped(driver, table, () => conversationId), ...conditions);
  /** The conversation's own columns of a new row, and the key an upsert conflicts on. */
  const own = driver.dialect === "postgres" ? { conversationId } : {};
  const key = (table: Sql, column: Sql) => (driver.dialect === "postgres" ? [table.conversationId, column] : [column]);
  const now = () => driver.clock.now();
  let closed = false;
  const run = async <T>(what: string, step: () => Awaitable<T>): Promise<T> => {
    if (closed) throw new SteamharnessError("unavailable", "the session host record is closed");
    return call(`session host record: ${what}`, step);
  };
  const tasksOf = async (what: string, step: () => Awaitable<HostTaskRow[]>) => (await run(what, step)).map(taskOf);
  const marked = (mark: "cancel_requested" | "cancelled", taskIds?: readonly string[]) =>
    driver.transaction(function* (tx) {
      const { asc, eq, inArray } = tx.ops;
      const filter = where(tasks, inArray(tasks.status, ACTIVE), mark === "cancelled" ? eq(tasks.cancelRequested, flag(tx, true)) : taskIds === undefined ? undefined : inArray(tasks.taskId, [...taskIds]));
      const ids = ((yield tx.all(tx.forUpdate(tx.db.select({ taskId: tasks.taskId }).from(tasks).where(filter).orderBy(asc(tasks.ord))))) as Array<{ taskId: string }>).map((row) => row.taskId);
      const set = mark === "cancelled" ? { status: "cancelled" } : { cancelRequested: flag(tx, true) };
      if (ids.length > 0) yield tx.run(tx.db.update(tasks).set({ ...set, updatedAt: now() }).where(where(tasks, inArray(tasks.taskId, ids))));
      return ids;
    });
  return {
    listTasks: () => tasksOf("listing tasks", () => driver.execute(TASKS, { conversationId })),
    findTasks: (query) =>
      tasksOf("finding tasks", () => then(driver.execute(found(query), { conversationId, ...(query.runId === undefined ? {} : { runId: query.runId }) }), (rows: HostTaskRow[]) => (query.last === undefined ? rows : rows.reverse()))),
    getTask: async (taskId) => {
      const row: HostTaskRow | undefined = await run("reading a task", () => driver.execute(TASK, { conversationId, taskId }));
      return row ? taskOf(row) : null;
    },
    queuedSteerTasks: (targetId, afterOrder) => tasksOf("reading queued steer tasks", () => driver.execute(STEERS, { conversationId, targetId, afterOrder })),
    insertTask: async (task) => {
      // `steer` is kept apart from the input's JSON, so that queuedSteerTasks is an index range.
      const columns = { ...task, input: JSON.stringify(task.input), detail: json(task.detail), steer: flag(driver, task.input.steer === true), updatedAt: now() };
      const { row, created } = await run("adding a task", () =>
        driver.transaction(function* (tx) {
          // PostgreSQL: the record's row lock first, so two inserts of one task id queue here and the second finds the first.
          if (tx.dialect === "postgres" && !(yield tx.get(tx.forUpdate(tx.db.select({ id: hostRecords.conversationId }).from(hostRecords).where(ops.eq(hostRecords.conversationId, conversationId)))))) {
            throw new SteamharnessError("not_found", `no session host record for conversation ${conversationId}`);
          }
          const existing = yield tx.execute(TASK, { conversationId, taskId: task.taskId });
          if (existing) return { row: existing, created: false };
          const ord = yield* next(tx, conversationId, "nextTaskOrder");
          return { row: yield tx.execute(INSERT_TASK, { conversationId, ord, ...columns }), created: true };
        }),
      );
      return { task: taskOf(row), created };
    },
    updateTask: (taskId, patch) =>
      run("updating a task", () =>
        driver.transaction(function* (tx) {
          const current = yield tx.execute(LOCK_TASK, { conversationId, taskId });
          if (!current) throw new SteamharnessError("not_found", `no task ${taskId}`);
          if (!acceptTaskUpdate({ status: current.status, cancelRequested: Boolean(current.cancelRequested) }, patch.status)) return false;
          const move = { status: patch.status, ...(patch.detail === undefined ? {} : { detail: json(patch.detail) }), ...(patch.input === undefined ? {} : { input: JSON.stringify(patch.input) }) };
          yield tx.execute(moveOf(Object.keys(move)), { conversationId, taskId, ...move, updatedAt: now() });
          return true;
        }),
      ),
    requestCancel: (taskIds) => run("persisting a cancel intent", () => marked("cancel_requested", taskIds)),
    clearCancelled: () => run("clearing cancelled tasks", () => marked("cancelled")),
    listContexts: async () => {
      const rows = await run("listing contexts", () => driver.all(db.select({ targetId: contexts.targetId, kind: contexts.kind, sessionKey: contexts.sessionKey, parentTargetId: contexts.parentTargetId }).from(contexts).where(where(contexts)).orderBy(ops.asc(contexts.targetId))));
      return rows.map((row) => ({ ...row, kind: row.kind as AgentSessionContextKind }));
    },
    putContext: async (context) => void (await run("recording a context", () => driver.run(db.insert(contexts).values({ ...own, ...context }).onConflictDoNothing()))),
    getSetting: async (name) => (await run("reading a setting", () => driver.get(db.select({ value: settings.value }).from(settings).where(where(settings, ops.eq(settings.key, name))))))?.value ?? null,
    setSetting: async (name, text) => void (await run("writing a setting", () => driver.run(db.insert(settings).values({ ...own, key: name, value: text }).onConflictDoUpdate({ target: key(settings, settings.key), set: { value: text } })))),
    putTurnItems: async (runId, list) => {
      const items = JSON.stringify(list);
      await run("recording a turn's items", () => driver.run(db.insert(turnItems).values({ ...own, runId, items, updatedAt: now() }).onConflictDoUpdate({ target: key(turnItems, turnItems.runId), set: { items, updatedAt: now() } })));
    },
    getTurnItems: async (runId) => parsed((await run("reading a turn's items", () => driver.get(db.select({ items: turnItems.items }).from(turnItems).where(where(turnItems, ops.eq(turnItems.runId, runId))))))?.items ?? null) as JsonObject[] | null,
    // SQLite: one prepared insert numbered by AUTOINCREMENT; PostgreSQL: the record's counter first, in one transaction.
    enqueueCommand: (body) => {
      const command = JSON.stringify(body);
      return run("enqueueing a command", () =>
        driver.dialect === "sqlite"
          ? then(driver.execute(ENQUEUE, { conversationId, command, createdAt: now() }), (row) => row.seq as number)
          : driver.transaction(function* (tx) {
              const seq = yield* next(tx, conversationId, "nextCommandSeq");
              yield tx.execute(ENQUEUE, { conversationId, seq, command, createdAt: now() });
              return seq!;
            }),
      );
    },
    pendingCommands: async (afterSeq) => (await run("reading the inbox", () => driver.execute(PENDING, { conversationId, afterSeq }))).map((row: { seq: number; command: string }) => ({ seq: row.seq, command: parsed(row.command)! })),
    answerCommand: async (seq, outcome) => {
      const set = "error" in outcome ? { status: "failed", outcome: JSON.stringify(outcome.error) } : { status: "done", outcome: JSON.stringify(outcome.result) };
      await run("answering a command", () => driver.run(db.update(commands).set(set).where(where(commands, ops.eq(commands.seq, seq)))));
    },
    commandOutcome: async (seq) => {
      const row = await run("reading a command answer", () => driver.get(db.select({ status: commands.status, outcome: commands.outcome }).from(commands).where(where(commands, ops.eq(commands.seq, seq)))));
      if (!row) return null;
      const value = parsed(row.outcome);
      return { status: row.status as AgentSessionInboxOutcome["status"], result: row.status === "done" ? value : null, error: row.status === "failed" ? (value as unknown as { code: string; message: string }) : null };
    },
    async close() {
      if (closed) return;
      closed = true;
      await close();
    },
  };
}
