/**
 * A conversation's session-host record on PostgreSQL (HOST-1 … HOST-5, HOST-7): tasks, contexts,
 * settings, each turn's output items and the command inbox, in tables keyed by conversation id, so a host on one machine
 * and a `controlAgentSession` caller on another share it. Writes that read before they write
 * (task moves, cancel intents, new tasks and commands) run in one transaction holding the rows
 * they decide on (`for update`), so two processes never both act on the same state.
 */
import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { SteamharnessError } from "../../../../domain/errors.js";
import { ACTIVE_TASK_STATUSES } from "../../../../domain/session-host/host-state.js";
import type { AgentSessionHostStore } from "../../../../ports/session-host-store.js";
import { createSessionHostStore } from "../../kernel/session-host-store.js";
import { postgresCall, type PostgresDb } from "../postgres-database.js";
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
  const { hostRecords, hostTasks: tasks, hostContexts: contexts, hostSettings: settings, hostCommands: commands, hostTurnItems: turnItems } = options.tables;
  const now = options.now ?? Date.now;
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

  const byTask = (taskId: string) => and(mine, eq(tasks.taskId, taskId));
  const atSeq = (seq: number) => and(eq(commands.conversationId, conversationId), eq(commands.seq, seq));
  return createSessionHostStore(
    {
      tasks: () => db.select().from(tasks).where(mine).orderBy(asc(tasks.ord)),
      task: async (taskId) => (await db.select().from(tasks).where(byTask(taskId)))[0],
      queuedSteers: (targetId, afterOrder) =>
        db
          .select()
          .from(tasks)
          .where(and(mine, eq(tasks.steer, true), eq(tasks.status, "queued"), eq(tasks.targetId, targetId), gt(tasks.ord, afterOrder), eq(tasks.cancelRequested, false)))
          .orderBy(asc(tasks.ord)),
      insertTask: (columns) =>
        db.transaction(async (tx) => {
          // The record's row lock first: two inserts of one task id queue here, the second finds the first.
          const [record] = await tx.select({ next: hostRecords.nextTaskOrder }).from(hostRecords).where(eq(hostRecords.conversationId, conversationId)).for("update");
          if (!record) throw new SteamharnessError("not_found", `no session host record for conversation ${conversationId}`);
          const [existing] = await tx.select().from(tasks).where(byTask(columns.taskId));
          if (existing) return { row: existing, created: false };
          const ord = await nextOf(tx, "nextTaskOrder");
          const [row] = await tx.insert(tasks).values({ conversationId, ord, ...columns, updatedAt: now() }).returning();
          return { row: row!, created: true };
        }),
      moveTask: (taskId, decide) =>
        db.transaction(async (tx) => {
          const [row] = await tx.select({ status: tasks.status, cancelRequested: tasks.cancelRequested }).from(tasks).where(byTask(taskId)).for("update");
          const move = decide(row);
          if (move === null) return false;
          await tx.update(tasks).set({ ...move, updatedAt: now() }).where(byTask(taskId));
          return true;
        }),
      markActive: (mark, taskIds) =>
        db.transaction(async (tx) => {
          const filter = mark === "cancelled" ? and(activeTasks(), eq(tasks.cancelRequested, true)) : activeTasks(taskIds);
          const ids = (await tx.select({ taskId: tasks.taskId }).from(tasks).where(filter).orderBy(asc(tasks.ord)).for("update")).map((row) => row.taskId);
          const set = mark === "cancelled" ? { status: "cancelled" } : { cancelRequested: true };
          if (ids.length > 0) await tx.update(tasks).set({ ...set, updatedAt: now() }).where(and(mine, inArray(tasks.taskId, ids)));
          return ids;
        }),
      contexts: () => db.select().from(contexts).where(eq(contexts.conversationId, conversationId)).orderBy(asc(contexts.targetId)),
      putContext: async (context) => void (await db.insert(contexts).values({ conversationId, ...context }).onConflictDoNothing()),
      getSetting: async (key) => (await db.select({ value: settings.value }).from(settings).where(and(eq(settings.conversationId, conversationId), eq(settings.key, key))))[0]?.value,
      setSetting: async (key, value) =>
        void (await db.insert(settings).values({ conversationId, key, value }).onConflictDoUpdate({ target: [settings.conversationId, settings.key], set: { value } })),
      putTurnItems: async (runId, items) =>
        void (await db.insert(turnItems).values({ conversationId, runId, items, updatedAt: now() }).onConflictDoUpdate({ target: [turnItems.conversationId, turnItems.runId], set: { items, updatedAt: now() } })),
      getTurnItems: async (runId) => (await db.select({ items: turnItems.items }).from(turnItems).where(and(eq(turnItems.conversationId, conversationId), eq(turnItems.runId, runId))))[0]?.items,
      enqueue: (command) =>
        db.transaction(async (tx) => {
          const seq = await nextOf(tx, "nextCommandSeq");
          await tx.insert(commands).values({ conversationId, seq, command, status: "pending", createdAt: now() });
          return seq;
        }),
      pending: (afterSeq) =>
        db
          .select({ seq: commands.seq, command: commands.command })
          .from(commands)
          .where(and(eq(commands.conversationId, conversationId), gt(commands.seq, afterSeq), eq(commands.status, "pending")))
          .orderBy(asc(commands.seq)),
      answer: async (seq, columns) => void (await db.update(commands).set(columns).where(atSeq(seq))),
      outcome: async (seq) => (await db.select({ status: commands.status, outcome: commands.outcome }).from(commands).where(atSeq(seq)))[0],
      close: () => {},
    },
    postgresCall({ closed: false }),
  );
}
