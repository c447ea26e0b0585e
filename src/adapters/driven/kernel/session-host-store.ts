/**
 * The session-host store port written once (ARCH-3, ARCH-8): `unavailable` after close, the
 * task-transition rule (a persisted cancel is final), JSON columns, copies on read, over a
 * family's {@link SessionHostRows} (memory, SQLite, PostgreSQL).
 */
import { SteamharnessError } from "../../../domain/errors.js";
import { acceptTaskUpdate, type AgentSessionContextRecord, type AgentSessionTaskStatus } from "../../../domain/session-host/host-state.js";
import type { JsonObject } from "../../../domain/json.js";
import type { AgentSessionHostStore } from "../../../ports/session-host-store.js";
import { answerColumns, contextOf, inboxEntryOf, outcomeOf, taskColumns, taskMoveColumns, taskOf, type HostTaskRow } from "./session-host-rows.js";
import type { Awaitable, StoreCall } from "./store-call.js";

/** What {@link AgentSessionHostStore.findTasks} asks. */
export type TaskQuery = Parameters<AgentSessionHostStore["findTasks"]>[0];

/** Columns a task move writes (see `taskMoveColumns`). */
export type HostTaskMove = ReturnType<typeof taskMoveColumns>;

/** Row access of one conversation's host record. Rows stamp `updatedAt`/`createdAt` themselves. */
export interface SessionHostRows {
  /** Every task row, in submission order. */
  tasks(): Awaitable<HostTaskRow[]>;
  /** UI-2: the task rows matching `query`, in submission order (an index range, not the task history). */
  findTasks(query: TaskQuery): Awaitable<HostTaskRow[]>;
  /** The task row, or undefined. */
  task(taskId: string): Awaitable<HostTaskRow | undefined>;
  /** UI-5: rows of queued steer tasks of `targetId` after `afterOrder` without a cancel intent, in order (an index range). */
  queuedSteers(targetId: number, afterOrder: number): Awaitable<HostTaskRow[]>;
  /** One atomic step: the row of an existing `taskId` (`created: false`), else the new row at the end of the order. */
  insertTask(columns: ReturnType<typeof taskColumns>): Awaitable<{ row: HostTaskRow; created: boolean }>;
  /**
   * One atomic step: reads the task's status and cancel intent (undefined for an unknown task),
   * writes what `decide` returns unless it is null; resolves whether it wrote.
   */
  moveTask(taskId: string, decide: (current: Pick<HostTaskRow, "status" | "cancelRequested"> | undefined) => HostTaskMove | null): Awaitable<boolean>;
  /**
   * One atomic step over the active tasks (only `taskIds` when given; only those with a cancel
   * intent for `"cancelled"`): marks them — `"cancel_requested"` sets the intent, `"cancelled"` the
   * status — and resolves their ids in submission order.
   */
  markActive(mark: "cancel_requested" | "cancelled", taskIds?: readonly string[]): Awaitable<string[]>;
  /** The context rows, by `targetId`. */
  contexts(): Awaitable<Array<{ targetId: number; kind: string; sessionKey: string; parentTargetId: number | null }>>;
  /** Inserts the context unless its `targetId` is recorded. */
  putContext(context: AgentSessionContextRecord): Awaitable<void>;
  getSetting(key: string): Awaitable<string | null | undefined>;
  setSetting(key: string, value: string): Awaitable<void>;
  /** Replaces the items of one run's turn (JSON text, HOST-7). */
  putTurnItems(runId: string, items: string): Awaitable<void>;
  /** The JSON text of one run's turn items; `null`/`undefined` when none were recorded. */
  getTurnItems(runId: string): Awaitable<string | null | undefined>;
  /** Appends a pending command (JSON text) at the next seq; resolves the seq. */
  enqueue(command: string): Awaitable<number>;
  /** Pending commands with `seq > afterSeq`, oldest first. */
  pending(afterSeq: number): Awaitable<Array<{ seq: number; command: string }>>;
  answer(seq: number, columns: ReturnType<typeof answerColumns>): Awaitable<void>;
  /** A command's status and outcome JSON text, or undefined. */
  outcome(seq: number): Awaitable<{ status: string; outcome: string | null } | undefined>;
  /** Releases the rows' handles; called once. */
  close(): Awaitable<void>;
}

/**
 * The host store over `rows`; `call` maps each step's faults (`storage_failure` with `cause`).
 *
 * @example
 * const store = createSessionHostStore(rows, sqliteHostCall);
 */
export function createSessionHostStore(rows: SessionHostRows, call: StoreCall): AgentSessionHostStore {
  let closed = false;
  const run = async <T>(what: string, step: () => Awaitable<T>): Promise<T> => {
    if (closed) throw new SteamharnessError("unavailable", "the session host record is closed");
    return call(`session host record: ${what}`, step);
  };
  return {
    listTasks: async () => (await run("listing tasks", () => rows.tasks())).map(taskOf),
    findTasks: async (query) => (await run("finding tasks", () => rows.findTasks(query))).map(taskOf),
    getTask: async (taskId) => {
      const row = await run("reading a task", () => rows.task(taskId));
      return row ? taskOf(row) : null;
    },
    queuedSteerTasks: async (targetId, afterOrder) => (await run("reading queued steer tasks", () => rows.queuedSteers(targetId, afterOrder))).map(taskOf),
    insertTask: async (task) => {
      const { row, created } = await run("adding a task", () => rows.insertTask(taskColumns(task)));
      return { task: taskOf(row), created };
    },
    updateTask: (taskId, patch) =>
      run("updating a task", () =>
        rows.moveTask(taskId, (current) => {
          if (!current) throw new SteamharnessError("not_found", `no task ${taskId}`);
          const accepted = acceptTaskUpdate({ status: current.status as AgentSessionTaskStatus, cancelRequested: Boolean(current.cancelRequested) }, patch.status);
          return accepted ? taskMoveColumns(patch) : null;
        }),
      ),
    requestCancel: (taskIds) => run("persisting a cancel intent", () => rows.markActive("cancel_requested", taskIds)),
    clearCancelled: () => run("clearing cancelled tasks", () => rows.markActive("cancelled")),
    listContexts: async () => (await run("listing contexts", () => rows.contexts())).map(contextOf),
    putContext: (context) => run("recording a context", () => rows.putContext(context)),
    getSetting: async (key) => (await run("reading a setting", () => rows.getSetting(key))) ?? null,
    setSetting: (key, value) => run("writing a setting", () => rows.setSetting(key, value)),
    putTurnItems: (runId, items) => run("recording a turn's items", () => rows.putTurnItems(runId, JSON.stringify(items))),
    getTurnItems: async (runId) => {
      const text = await run("reading a turn's items", () => rows.getTurnItems(runId));
      return text === null || text === undefined ? null : (JSON.parse(text) as JsonObject[]);
    },
    enqueueCommand: (command) => run("enqueueing a command", () => rows.enqueue(JSON.stringify(command))),
    pendingCommands: async (afterSeq) => (await run("reading the inbox", () => rows.pending(afterSeq))).map(inboxEntryOf),
    answerCommand: (seq, outcome) => run("answering a command", () => rows.answer(seq, answerColumns(outcome))),
    commandOutcome: async (seq) => outcomeOf(await run("reading a command answer", () => rows.outcome(seq))),
    async close() {
      if (closed) return;
      closed = true;
      await rows.close();
    },
  };
}
