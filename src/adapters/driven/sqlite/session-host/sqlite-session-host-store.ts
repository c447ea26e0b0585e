import { join, resolve } from "node:path";
import { conversationFolderSegment } from "../sessions/session-file-names.js";
import { ACTIVE_TASK_STATUSES } from "../../../../domain/session-host/host-state.js";
import type { AgentSessionHostStore } from "../../../../ports/session-host-store.js";
import { openMigratedSqlite } from "../shared/migrations.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { createSessionHostStore } from "../../kernel/session-host-store.js";
import { sqliteCall } from "../store/sqlite-support.js";
import { sessionHostTables } from "./host-schema.js";

/** The file name of a conversation's host record; it never matches a session file (`<slug>-<hash>.sqlite`). */
export const SESSION_HOST_FILE = "_session-host.db";

const ACTIVE = [...ACTIVE_TASK_STATUSES];

/**
 * The host record's path: `<agentStoreDir>/<conversation folder>/_session-host.db`, in the folder
 * that holds the conversation's session files.
 *
 * @example
 * sessionHostDatabasePath("/data/agents", "conv-1") // "/data/agents/conv-1-<hash>/_session-host.db"
 */
export function sessionHostDatabasePath(agentStoreDir: string, conversationId: string): string {
  return join(resolve(agentStoreDir), conversationFolderSegment(conversationId), SESSION_HOST_FILE);
}

/**
 * The SQLite host record of one conversation (WAL; any process may write commands and cancel
 * intents while the lease holder runs tasks). Created on first open.
 *
 * @example
 * const store = openSqliteSessionHostStore({ path: sessionHostDatabasePath(agentStoreDir, "conv-1") });
 */
export function openSqliteSessionHostStore(options: { path: string; now?: () => number }): AgentSessionHostStore {
  const { and, asc, eq, gt, inArray, sql } = drizzleOrm();
  const { hostCommands, hostContexts, hostSettings, hostTasks, hostTurnItems } = sessionHostTables();
  const now = options.now ?? Date.now;
  const { client, db } = openMigratedSqlite(options.path, { migrations: "session-host", what: "the session host record" });
  const tasks = () => db.select().from(hostTasks);
  // The lease holder's inbox asks these every poll (HOST-1): compiled once, not built per call.
  const taskById = tasks().where(eq(hostTasks.taskId, sql.placeholder("taskId"))).prepare();
  const pendingAfter = db.select().from(hostCommands).where(and(gt(hostCommands.seq, sql.placeholder("afterSeq")), eq(hostCommands.status, "pending"))).orderBy(asc(hostCommands.seq)).prepare();
  // Issue 45 item 1: every chat turn lists, steers and enqueues through these, so drizzle builds each once per connection, on first use, not per call.
  const lazy = <T>(make: () => T): (() => T) => ((made?: T) => () => (made ??= make()))();
  const allTasks = lazy(() => tasks().orderBy(asc(hostTasks.ord)).prepare());
  const steersAfter = lazy(() => tasks().where(and(eq(hostTasks.steer, 1), eq(hostTasks.status, "queued"), eq(hostTasks.targetId, sql.placeholder("targetId")), gt(hostTasks.ord, sql.placeholder("afterOrder")), eq(hostTasks.cancelRequested, 0))).orderBy(asc(hostTasks.ord)).prepare());
  const insertCommand = lazy(() => db.insert(hostCommands).values({ command: sql.placeholder("command"), status: "pending", createdAt: sql.placeholder("createdAt") }).returning({ seq: hostCommands.seq }).prepare());
  const activeFilter = (mark: "cancel_requested" | "cancelled", taskIds?: readonly string[]) =>
    and(inArray(hostTasks.status, ACTIVE), mark === "cancelled" ? eq(hostTasks.cancelRequested, 1) : taskIds === undefined ? undefined : inArray(hostTasks.taskId, [...taskIds]));
  // SQLite's own path: every read-then-write is one synchronous IMMEDIATE transaction (no await inside).
  return createSessionHostStore(
    {
      tasks: () => allTasks().all(),
      task: (taskId) => taskById.get({ taskId }),
      queuedSteers: (targetId, afterOrder) => steersAfter().all({ targetId, afterOrder }),
      insertTask: (columns) =>
        db.transaction((tx) => {
          const existing = taskById.get({ taskId: columns.taskId });
          if (existing) return { row: existing, created: false };
          return { row: tx.insert(hostTasks).values({ ...columns, steer: columns.steer ? 1 : 0, updatedAt: now() }).returning().get(), created: true };
        }, { behavior: "immediate" }),
      moveTask: (taskId, decide) =>
        db.transaction((tx) => {
          const move = decide(taskById.get({ taskId }));
          if (move === null) return false;
          tx.update(hostTasks).set({ ...move, updatedAt: now() }).where(eq(hostTasks.taskId, taskId)).run();
          return true;
        }, { behavior: "immediate" }),
      markActive: (mark, taskIds) =>
        db.transaction((tx) => {
          const filter = activeFilter(mark, taskIds);
          const rows = tx.select({ taskId: hostTasks.taskId }).from(hostTasks).where(filter).orderBy(asc(hostTasks.ord)).all();
          if (rows.length > 0) tx.update(hostTasks).set({ ...(mark === "cancelled" ? { status: "cancelled" } : { cancelRequested: 1 }), updatedAt: now() }).where(filter).run();
          return rows.map((row) => row.taskId);
        }, { behavior: "immediate" }),
      contexts: () => db.select().from(hostContexts).orderBy(asc(hostContexts.targetId)).all(),
      putContext: (context) => void db.insert(hostContexts).values(context).onConflictDoNothing().run(),
      getSetting: (key) => db.select().from(hostSettings).where(eq(hostSettings.key, key)).get()?.value,
      setSetting: (key, value) => void db.insert(hostSettings).values({ key, value }).onConflictDoUpdate({ target: hostSettings.key, set: { value } }).run(),
      putTurnItems: (runId, items) => void db.insert(hostTurnItems).values({ runId, items, updatedAt: now() }).onConflictDoUpdate({ target: hostTurnItems.runId, set: { items, updatedAt: now() } }).run(),
      getTurnItems: (runId) => db.select({ items: hostTurnItems.items }).from(hostTurnItems).where(eq(hostTurnItems.runId, runId)).get()?.items,
      enqueue: (command) => insertCommand().get({ command, createdAt: now() })!.seq,
      pending: (afterSeq) => pendingAfter.all({ afterSeq }),
      answer: (seq, columns) => void db.update(hostCommands).set(columns).where(eq(hostCommands.seq, seq)).run(),
      outcome: (seq) => db.select().from(hostCommands).where(eq(hostCommands.seq, seq)).get(),
      close: () => void client.close(),
    },
    sqliteCall({ closed: false }),
  );
}
