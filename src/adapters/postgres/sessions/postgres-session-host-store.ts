/**
 * A conversation's session-host record on PostgreSQL (HOST-1 … HOST-5): tasks, contexts,
 * settings and the command inbox, in tables keyed by conversation id, so a host on one machine
 * and a `controlAgentSession` caller on another share it. Writes that read before they write
 * (task moves, cancel intents, new tasks and commands) run in one transaction holding the rows
 * they decide on (`for update`), so two processes never both act on the same state.
 */
import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { SteamharnessError, wrapAdapterError } from "../../../domain/errors.js";
import { ACTIVE_TASK_STATUSES, acceptTaskUpdate, type AgentSessionTaskStatus } from "../../../domain/session-host/host-state.js";
import type { AgentSessionHostStore } from "../../../ports/session-host-store.js";
import { answerColumns, contextOf, inboxEntryOf, outcomeOf, taskColumns, taskMoveColumns, taskOf } from "../../store-kernel/session-host-rows.js";
import { driverFault, type PostgresDb } from "../postgres-database.js";
import type { PostgresSessionTables } from "./session-schema.js";

const ACTIVE = [...ACTIVE_TASK_STATUSES];

/** Options of {@link createPostgresSessionHostStore}. */
export interface PostgresSessionHostStoreOptions {
  db: PostgresDb;
  tables: PostgresSessionTables;
  conversationId: string;
  now?: () => number;
}

/**
 * Makes sure the conversation has a host record; resolves whether it has one (`create: false`
 * only looks).
 *
 * @example
 * if (!(await ensureHostRecord(db, tables, "conv-1", false))) return null;
 */
export async function ensureHostRecord(db: PostgresDb, tables: PostgresSessionTables, conversationId: string, create: boolean, now = Date.now): Promise<boolean> {
  const { hostRecords } = tables;
  if (create) {
    await db.insert(hostRecords).values({ conversationId, createdAt: now() }).onConflictDoNothing();
    return true;
  }
  const [row] = await db.select({ id: hostRecords.conversationId }).from(hostRecords).where(eq(hostRecords.conversationId, conversationId));
  return row !== undefined;
}

/**
 * The host store of one conversation whose record exists (see {@link ensureHostRecord}). Faults
 * reject with `storage_failure`; calls after `close()` with `unavailable`.
 *
 * @example
 * const store = createPostgresSessionHostStore({ db, tables, conversationId: "conv-1" });
 * await store.enqueueCommand({ type: "cancel" });
 */
export function createPostgresSessionHostStore(options: PostgresSessionHostStoreOptions): AgentSessionHostStore {
  const { db, conversationId } = options;
  const { hostRecords, hostTasks: tasks, hostContexts: contexts, hostSettings: settings, hostCommands: commands } = options.tables;
  const now = options.now ?? Date.now;
  let closed = false;
  const run = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    if (closed) throw new SteamharnessError("unavailable", "the session host record is closed");
    try {
      return await work();
    } catch (error) {
      if (error instanceof SteamharnessError) throw error;
      throw wrapAdapterError("postgres", `session host record: ${what} failed`, driverFault(error));
    }
  };
  const mine = eq(tasks.conversationId, conversationId);
  const activeTasks = (taskIds?: readonly string[]) => and(mine, inArray(tasks.status, ACTIVE), taskIds === undefined ? undefined : inArray(tasks.taskId, [...taskIds]));
  /** Takes the next value of a counter of the record, holding the record's row until the transaction ends. */
  const nextOf = async (tx: Pick<PostgresDb, "update">, counter: "nextTaskOrder" | "nextCommandSeq"): Promise<number> => {
    const column = hostRecords[counter];
    const [row] = await tx
      .update(hostRecords)
      .set({ [counter]: sql`${column} + 1` })
      .where(eq(hostRecords.conversationId, conversationId))
      .returning({ taken: sql<number>`${column} - 1` });
    if (!row) throw new SteamharnessError("not_found", `no session host record for conversation ${conversationId}`);
    return Number(row.taken);
  };

  return {
    listTasks: () => run("listing tasks", async () => (await db.select().from(tasks).where(mine).orderBy(asc(tasks.ord))).map(taskOf)),
    getTask: (taskId) =>
      run("reading a task", async () => {
        const [row] = await db.select().from(tasks).where(and(mine, eq(tasks.taskId, taskId)));
        return row ? taskOf(row) : null;
      }),
    insertTask: (task) =>
      run("adding a task", () =>
        db.transaction(async (tx) => {
          // The record's row lock first: two inserts of one task id queue here, the second finds the first.
          const [record] = await tx.select({ next: hostRecords.nextTaskOrder }).from(hostRecords).where(eq(hostRecords.conversationId, conversationId)).for("update");
          if (!record) throw new SteamharnessError("not_found", `no session host record for conversation ${conversationId}`);
          const [existing] = await tx.select().from(tasks).where(and(mine, eq(tasks.taskId, task.taskId)));
          if (existing) return { task: taskOf(existing), created: false };
          const ord = await nextOf(tx, "nextTaskOrder");
          const [row] = await tx
            .insert(tasks)
            .values({ conversationId, ord, ...taskColumns(task), updatedAt: now() })
            .returning();
          return { task: taskOf(row!), created: true };
        }),
      ),
    updateTask: (taskId, patch) =>
      run("updating a task", () =>
        db.transaction(async (tx) => {
          const [row] = await tx.select({ status: tasks.status, cancelRequested: tasks.cancelRequested }).from(tasks).where(and(mine, eq(tasks.taskId, taskId))).for("update");
          if (!row) throw new SteamharnessError("not_found", `no task ${taskId}`);
          if (!acceptTaskUpdate({ status: row.status as AgentSessionTaskStatus, cancelRequested: row.cancelRequested }, patch.status)) return false;
          await tx
            .update(tasks)
            .set({ ...taskMoveColumns(patch), updatedAt: now() })
            .where(and(mine, eq(tasks.taskId, taskId)));
          return true;
        }),
      ),
    requestCancel: (taskIds) =>
      run("persisting a cancel intent", () =>
        db.transaction(async (tx) => {
          const rows = await tx.select({ taskId: tasks.taskId }).from(tasks).where(activeTasks(taskIds)).orderBy(asc(tasks.ord)).for("update");
          const ids = rows.map((row) => row.taskId);
          if (ids.length > 0) await tx.update(tasks).set({ cancelRequested: true, updatedAt: now() }).where(and(mine, inArray(tasks.taskId, ids)));
          return ids;
        }),
      ),
    clearCancelled: () =>
      run("clearing cancelled tasks", () =>
        db.transaction(async (tx) => {
          const rows = await tx.select({ taskId: tasks.taskId }).from(tasks).where(and(activeTasks(), eq(tasks.cancelRequested, true))).orderBy(asc(tasks.ord)).for("update");
          const ids = rows.map((row) => row.taskId);
          if (ids.length > 0) await tx.update(tasks).set({ status: "cancelled", updatedAt: now() }).where(and(mine, inArray(tasks.taskId, ids)));
          return ids;
        }),
      ),
    listContexts: () =>
      run("listing contexts", async () =>
        (await db.select().from(contexts).where(eq(contexts.conversationId, conversationId)).orderBy(asc(contexts.targetId))).map(contextOf),
      ),
    putContext: (context) =>
      run("recording a context", async () => {
        await db.insert(contexts).values({ conversationId, ...context }).onConflictDoNothing();
      }),
    getSetting: (key) =>
      run("reading a setting", async () => {
        const [row] = await db.select({ value: settings.value }).from(settings).where(and(eq(settings.conversationId, conversationId), eq(settings.key, key)));
        return row?.value ?? null;
      }),
    setSetting: (key, value) =>
      run("writing a setting", async () => {
        await db.insert(settings).values({ conversationId, key, value }).onConflictDoUpdate({ target: [settings.conversationId, settings.key], set: { value } });
      }),
    enqueueCommand: (command) =>
      run("enqueueing a command", () =>
        db.transaction(async (tx) => {
          const seq = await nextOf(tx, "nextCommandSeq");
          await tx.insert(commands).values({ conversationId, seq, command: JSON.stringify(command), status: "pending", createdAt: now() });
          return seq;
        }),
      ),
    pendingCommands: (afterSeq) =>
      run("reading the inbox", async () =>
        (
          await db
            .select({ seq: commands.seq, command: commands.command })
            .from(commands)
            .where(and(eq(commands.conversationId, conversationId), gt(commands.seq, afterSeq), eq(commands.status, "pending")))
            .orderBy(asc(commands.seq))
        ).map(inboxEntryOf),
      ),
    answerCommand: (seq, outcome) =>
      run("answering a command", async () => {
        await db
          .update(commands)
          .set(answerColumns(outcome))
          .where(and(eq(commands.conversationId, conversationId), eq(commands.seq, seq)));
      }),
    commandOutcome: (seq) =>
      run("reading a command answer", async () => {
        const [row] = await db.select({ status: commands.status, outcome: commands.outcome }).from(commands).where(and(eq(commands.conversationId, conversationId), eq(commands.seq, seq)));
        return outcomeOf(row);
      }),
    async close() {
      closed = true;
    },
  };
}
