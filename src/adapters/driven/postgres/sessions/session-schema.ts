/**
 * The drizzle schema of PostgreSQL agent sessions (SES-1, SES-2, HOST-1): every session's
 * append-only event log, its head row and latest snapshot, and each conversation's session-host
 * record (tasks, contexts, settings, command inbox). Migrations in `drizzle/postgres-sessions/`
 * are generated from the unqualified tables exported here with
 * `npx drizzle-kit generate --config drizzle.postgres-sessions.config.ts`; like the store's, they
 * name no schema and apply to the schema `search_path` points at while migrating. At run time
 * {@link postgresSessionTables} binds the tables to the configured schema.
 *
 * Payloads, snapshot states, task inputs and commands are JSON kept as `text`: stored and read
 * back byte for byte (no key reordering as with `jsonb`), never queried inside.
 */
import { bigint, boolean, index, integer, pgSchema, pgTable, primaryKey, text, uniqueIndex, type PgTableFn } from "drizzle-orm/pg-core";

const millis = (name: string) => bigint(name, { mode: "number" });

function defineSessionTables<S extends string | undefined>(table: PgTableFn<S>) {
  return {
    /**
     * One row per session: its numeric id (the events' key), its address, and what `head()`
     * returns, kept in step by every append under the row's lock. `scope` is `""` for a session
     * outside a conversation and `"c:" + conversationId` otherwise, so the address is a plain key.
     */
    sessions: table(
      "agent_sessions",
      {
        id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
        projectId: text("project_id").notNull(),
        scope: text("scope").notNull(),
        conversationId: text("conversation_id"),
        sessionKey: text("session_key").notNull(),
        lastSeq: bigint("last_seq", { mode: "number" }).notNull().default(0),
        lastRunId: text("last_run_id"),
        snapshotAtSeq: bigint("snapshot_at_seq", { mode: "number" }),
        createdAt: millis("created_at").notNull(),
      },
      (t) => [uniqueIndex("agent_sessions_address").on(t.projectId, t.scope, t.sessionKey)],
    ),

    /**
     * The append-only log. (session, seq) is the primary key: reading after a seq, newest first
     * or oldest first, is a range scan of it. An event id is unique per session.
     */
    sessionEvents: table(
      "agent_session_events",
      {
        sessionId: bigint("session_id", { mode: "number" }).notNull(),
        seq: bigint("seq", { mode: "number" }).notNull(),
        eventId: text("event_id").notNull(),
        runId: text("run_id").notNull(),
        type: text("type").notNull(),
        payload: text("payload").notNull(),
        at: millis("at").notNull(),
      },
      (t) => [
        primaryKey({ columns: [t.sessionId, t.seq] }),
        uniqueIndex("agent_session_events_event_id").on(t.sessionId, t.eventId),
        // readRun: an index range already in seq order.
        index("agent_session_events_run").on(t.sessionId, t.runId, t.seq),
        // readAfter with a type filter, both directions.
        index("agent_session_events_type").on(t.sessionId, t.type, t.seq),
      ],
    ),

    /** The latest snapshot of a session (one row; replaced by a later one). */
    sessionSnapshots: table("agent_session_snapshots", {
      sessionId: bigint("session_id", { mode: "number" }).primaryKey(),
      atSeq: bigint("at_seq", { mode: "number" }).notNull(),
      state: text("state").notNull(),
      writtenAt: millis("written_at").notNull(),
    }),

    /** One row per conversation that has a host record; its counters give tasks and commands their order. */
    hostRecords: table("agent_host_records", {
      conversationId: text("conversation_id").primaryKey(),
      nextTaskOrder: integer("next_task_order").notNull().default(1),
      nextCommandSeq: integer("next_command_seq").notNull().default(1),
      createdAt: millis("created_at").notNull(),
    }),

    /** Submitted tasks; `ord` is the submission order within the conversation. */
    hostTasks: table(
      "agent_host_tasks",
      {
        conversationId: text("conversation_id").notNull(),
        taskId: text("task_id").notNull(),
        ord: integer("ord").notNull(),
        runId: text("run_id").notNull(),
        targetId: integer("target_id").notNull(),
        prompt: text("prompt").notNull(),
        input: text("input").notNull(),
        status: text("status").notNull(),
        cancelRequested: boolean("cancel_requested").notNull().default(false),
        detail: text("detail"),
        updatedAt: millis("updated_at").notNull(),
      },
      (t) => [primaryKey({ columns: [t.conversationId, t.taskId] }), uniqueIndex("agent_host_tasks_order").on(t.conversationId, t.ord)],
    ),

    /** Contexts of a host: the main session, forks and child sessions. */
    hostContexts: table(
      "agent_host_contexts",
      {
        conversationId: text("conversation_id").notNull(),
        targetId: integer("target_id").notNull(),
        kind: text("kind").notNull(),
        sessionKey: text("session_key").notNull(),
        parentTargetId: integer("parent_target_id"),
      },
      (t) => [primaryKey({ columns: [t.conversationId, t.targetId] })],
    ),

    /** Small settings of a host (the active context). */
    hostSettings: table(
      "agent_host_settings",
      {
        conversationId: text("conversation_id").notNull(),
        key: text("key").notNull(),
        value: text("value").notNull(),
      },
      (t) => [primaryKey({ columns: [t.conversationId, t.key] })],
    ),

    /** The durable command inbox: commands for a host that may run in another process or on another machine. */
    hostCommands: table(
      "agent_host_commands",
      {
        conversationId: text("conversation_id").notNull(),
        seq: integer("seq").notNull(),
        command: text("command").notNull(),
        status: text("status").notNull(),
        outcome: text("outcome"),
        createdAt: millis("created_at").notNull(),
      },
      (t) => [primaryKey({ columns: [t.conversationId, t.seq] })],
    ),

    /** The output items of each run's turn (HOST-7 `turns[].items`), one row per run, read by its key. */
    hostTurnItems: table(
      "agent_host_turn_items",
      {
        conversationId: text("conversation_id").notNull(),
        runId: text("run_id").notNull(),
        items: text("items").notNull(),
        updatedAt: millis("updated_at").notNull(),
      },
      (t) => [primaryKey({ columns: [t.conversationId, t.runId] })],
    ),
  };
}

/** The session tables, bound to one schema. */
export type PostgresSessionTables = ReturnType<typeof defineSessionTables<string>>;

/**
 * The session tables bound to `schema`, so every query names it.
 *
 * @example
 * const tables = postgresSessionTables("steamharness");
 * await db.select().from(tables.sessions);
 */
export function postgresSessionTables(schema: string): PostgresSessionTables {
  return defineSessionTables(pgSchema(schema).table);
}

// Unqualified tables, for drizzle-kit only: the generated migrations name no schema.
export const { sessions, sessionEvents, sessionSnapshots, hostRecords, hostTasks, hostContexts, hostSettings, hostCommands, hostTurnItems } = defineSessionTables(pgTable);
