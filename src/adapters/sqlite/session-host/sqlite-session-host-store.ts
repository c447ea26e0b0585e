import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { SteamharnessError, wrapAdapterError } from "../../../domain/errors.js";
import { conversationFolderSegment } from "../sessions/session-file-names.js";
import { ACTIVE_TASK_STATUSES, acceptTaskUpdate, type AgentSessionTaskStatus } from "../../../domain/session-host/host-state.js";
import type { AgentSessionHostStore } from "../../../ports/session-host-store.js";
import { openSqlite } from "../shared/sqlite-connection.js";
import { ensureSessionSchema } from "../sessions/session-migrations.js";
import { findMigrationsFolder } from "../shared/migrations.js";
import { drizzleBetterSqlite3, drizzleOrm } from "../shared/drizzle-modules.js";
import { answerColumns, contextOf, inboxEntryOf, outcomeOf, taskColumns, taskMoveColumns, taskOf } from "../../store-kernel/session-host-rows.js";
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

function migrationsFolder(): string {
  const folder = findMigrationsFolder("session-host");
  if (folder === null) throw new SteamharnessError("internal", "[steamharness] [sqlite] drizzle/session-host migrations not found");
  return folder;
}

/**
 * The SQLite host record of one conversation (WAL; any process may write commands and cancel
 * intents while the lease holder runs tasks). Created on first open.
 *
 * @example
 * const store = openSqliteSessionHostStore({ path: sessionHostDatabasePath(agentStoreDir, "conv-1") });
 */
export function openSqliteSessionHostStore(options: { path: string; now?: () => number }): AgentSessionHostStore {
  const { and, asc, eq, gt, inArray } = drizzleOrm();
  const { hostCommands, hostContexts, hostSettings, hostTasks } = sessionHostTables();
  const now = options.now ?? Date.now;
  let client: Database.Database;
  let db: BetterSQLite3Database;
  try {
    mkdirSync(dirname(options.path), { recursive: true });
    client = openSqlite(options.path, { timeout: 5000 });
    // PRAGMAs have no drizzle builder.
    client.pragma("journal_mode = WAL");
    client.pragma("synchronous = NORMAL");
    db = drizzleBetterSqlite3().drizzle({ client });
    ensureSessionSchema(db, client, migrationsFolder());
  } catch (error) {
    throw wrapAdapterError("sqlite", `cannot open the session host record ${options.path}`, error);
  }
  let closed = false;
  const run = async <T>(what: string, work: () => T): Promise<T> => {
    if (closed) throw new SteamharnessError("unavailable", "the session host record is closed");
    try {
      return work();
    } catch (error) {
      throw wrapAdapterError("sqlite", `session host record: ${what} failed`, error);
    }
  };
  const getTask = (taskId: string) => {
    const row = db.select().from(hostTasks).where(eq(hostTasks.taskId, taskId)).get();
    return row ? taskOf(row) : null;
  };
  return {
    listTasks: () => run("listing tasks", () => db.select().from(hostTasks).orderBy(asc(hostTasks.ord)).all().map(taskOf)),
    getTask: (taskId) => run("reading a task", () => getTask(taskId)),
    insertTask: (task) =>
      run("adding a task", () =>
        db.transaction((tx) => {
          const existing = tx.select().from(hostTasks).where(eq(hostTasks.taskId, task.taskId)).get();
          if (existing) return { task: taskOf(existing), created: false };
          const row = tx
            .insert(hostTasks)
            .values({ ...taskColumns(task), updatedAt: now() })
            .returning()
            .get();
          return { task: taskOf(row), created: true };
        }, { behavior: "immediate" }),
      ),
    updateTask: (taskId, patch) =>
      run("updating a task", () =>
        db.transaction((tx) => {
          const row = tx.select().from(hostTasks).where(eq(hostTasks.taskId, taskId)).get();
          if (!row) throw new SteamharnessError("not_found", `no task ${taskId}`);
          if (!acceptTaskUpdate({ status: row.status as AgentSessionTaskStatus, cancelRequested: row.cancelRequested === 1 }, patch.status)) return false;
          tx.update(hostTasks)
            .set({ ...taskMoveColumns(patch), updatedAt: now() })
            .where(eq(hostTasks.taskId, taskId))
            .run();
          return true;
        }, { behavior: "immediate" }),
      ),
    requestCancel: (taskIds) =>
      run("persisting a cancel intent", () =>
        db.transaction((tx) => {
          const filter = taskIds === undefined ? inArray(hostTasks.status, ACTIVE) : and(inArray(hostTasks.status, ACTIVE), inArray(hostTasks.taskId, [...taskIds]));
          const rows = tx.select({ taskId: hostTasks.taskId }).from(hostTasks).where(filter).orderBy(asc(hostTasks.ord)).all();
          if (rows.length > 0) tx.update(hostTasks).set({ cancelRequested: 1, updatedAt: now() }).where(filter).run();
          return rows.map((row) => row.taskId);
        }, { behavior: "immediate" }),
      ),
    clearCancelled: () =>
      run("clearing cancelled tasks", () =>
        db.transaction((tx) => {
          const filter = and(eq(hostTasks.cancelRequested, 1), inArray(hostTasks.status, ACTIVE));
          const rows = tx.select({ taskId: hostTasks.taskId }).from(hostTasks).where(filter).orderBy(asc(hostTasks.ord)).all();
          if (rows.length > 0) tx.update(hostTasks).set({ status: "cancelled", updatedAt: now() }).where(filter).run();
          return rows.map((row) => row.taskId);
        }, { behavior: "immediate" }),
      ),
    listContexts: () =>
      run("listing contexts", () =>
        db
          .select()
          .from(hostContexts)
          .orderBy(asc(hostContexts.targetId))
          .all()
          .map(contextOf),
      ),
    putContext: (context) =>
      run("recording a context", () => void db.insert(hostContexts).values(context).onConflictDoNothing().run()),
    getSetting: (key) => run("reading a setting", () => db.select().from(hostSettings).where(eq(hostSettings.key, key)).get()?.value ?? null),
    setSetting: (key, value) =>
      run("writing a setting", () => void db.insert(hostSettings).values({ key, value }).onConflictDoUpdate({ target: hostSettings.key, set: { value } }).run()),
    enqueueCommand: (command) =>
      run("enqueueing a command", () => db.insert(hostCommands).values({ command: JSON.stringify(command), status: "pending", createdAt: now() }).returning({ seq: hostCommands.seq }).get().seq),
    pendingCommands: (afterSeq) =>
      run("reading the inbox", () =>
        db
          .select()
          .from(hostCommands)
          .where(and(gt(hostCommands.seq, afterSeq), eq(hostCommands.status, "pending")))
          .orderBy(asc(hostCommands.seq))
          .all()
          .map(inboxEntryOf),
      ),
    answerCommand: (seq, outcome) =>
      run("answering a command", () =>
        void db
          .update(hostCommands)
          .set(answerColumns(outcome))
          .where(eq(hostCommands.seq, seq))
          .run(),
      ),
    commandOutcome: (seq) =>
      run("reading a command answer", () => outcomeOf(db.select().from(hostCommands).where(eq(hostCommands.seq, seq)).get())),
    async close() {
      if (closed) return;
      closed = true;
      client.close();
    },
  };
}
