/**
 * The resident session host's own schema: one SQLite file per conversation, next to its session
 * files, holding tasks, contexts, settings, the command inbox and each turn's output items. Migrations are generated from
 * this file with `npx drizzle-kit generate --config drizzle.session-host.config.ts` into
 * `drizzle/session-host/`. Kept apart from the session log, whose events the host never writes.
 */
import { drizzleSqliteCore } from "../shared/drizzle-modules.js";

/** The tables; drizzle is loaded and they are built on first use (PERF-1). */
function define() {
  const { index, integer, sqliteTable, text } = drizzleSqliteCore();
  /** Submitted tasks; `ord` is the submission order. */
  const hostTasks = sqliteTable(
    "host_tasks",
    {
      ord: integer("ord").primaryKey({ autoIncrement: true }),
      taskId: text("task_id").notNull().unique(),
      runId: text("run_id").notNull(),
      targetId: integer("target_id").notNull(),
      prompt: text("prompt").notNull(),
      /** JSON text. */
      input: text("input").notNull(),
      status: text("status").notNull(),
      cancelRequested: integer("cancel_requested").notNull().default(0),
      /** JSON text or null. */
      detail: text("detail"),
      updatedAt: integer("updated_at").notNull(),
    },
    (table) => [index("host_tasks_status_idx").on(table.status)],
  );

  /** Contexts: the main session, forks and child sessions. */
  const hostContexts = sqliteTable("host_contexts", {
    targetId: integer("target_id").primaryKey(),
    kind: text("kind").notNull(),
    sessionKey: text("session_key").notNull(),
    parentTargetId: integer("parent_target_id"),
  });

  /** Small settings (the active context). */
  const hostSettings = sqliteTable("host_settings", {
    key: text("key").primaryKey(),
    value: text("value").notNull(),
  });

  /** The durable command inbox: commands for a host that may live in another process. */
  const hostCommands = sqliteTable("host_commands", {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    /** JSON text. */
    command: text("command").notNull(),
    status: text("status").notNull(),
    /** JSON text of the result or of the error. */
    outcome: text("outcome"),
    createdAt: integer("created_at").notNull(),
  });
  /** The output items of each run's turn (HOST-7 `turns[].items`), one row per run, read by run id. */
  const hostTurnItems = sqliteTable("host_turn_items", {
    runId: text("run_id").primaryKey(),
    /** JSON text: the items in output order. */
    items: text("items").notNull(),
    updatedAt: integer("updated_at").notNull(),
  });
  return { hostTasks, hostContexts, hostSettings, hostCommands, hostTurnItems };
}

/** The session host's tables. */
export type SessionHostTables = ReturnType<typeof define>;

let tables: SessionHostTables | undefined;

/**
 * The tables, built on first use with the lazily loaded drizzle (PERF-1).
 *
 * @example
 * const { hostTasks } = sessionHostTables();
 */
export function sessionHostTables(): SessionHostTables {
  return (tables ??= define());
}
