/**
 * The agent session tables (SES-1, SES-2, HOST-1), in the table format both dialects share. They
 * are not one shape per dialect: SQLite keeps one file per session (log, snapshot, one meta row)
 * and one per conversation (the session host's record), PostgreSQL one set of tables keyed by
 * session id or conversation id for all of them. Payloads, states, task inputs and commands are
 * JSON kept as text: stored and read back byte for byte, never queried inside.
 */
import { defineTable } from "./table-definition.js";

const text = { kind: "text" } as const;
const int = { kind: "integer" } as const;
const bigint = { kind: "bigint" } as const;
const conversationId = { name: "conversation_id", ...text } as const;

/** One SQLite file per session. */
export const SQLITE_SESSION_TABLES = {
  /** The append-only log; `seq` is the rowid, so reading in order and by range needs no extra index. */
  sessionEvents: defineTable({
    name: "session_events",
    columns: { seq: { name: "seq", ...int }, eventId: { name: "event_id", ...text }, runId: { name: "run_id", ...text }, type: { name: "type", ...text }, payload: { name: "payload", ...text }, at: { name: "at", ...int } },
    primaryKey: ["seq"],
    // (run_id, seq) so that readRun is an index range scan already in seq order.
    indexes: { session_events_event_id_unique: { columns: ["eventId"], unique: true }, session_events_run_seq_idx: ["runId", "seq"] },
  }),
  /** Snapshots; the store keeps only the row with the highest `at_seq`. */
  sessionSnapshots: defineTable({ name: "session_snapshots", columns: { atSeq: { name: "at_seq", ...int }, state: { name: "state", ...text }, writtenAt: { name: "written_at", ...int } }, primaryKey: ["atSeq"] }),
  /**
   * One row (id 1) with what `head()` returns, kept in step by every write transaction so that the
   * head is read in O(1) without scanning the log. The address is recorded for diagnostics.
   */
  sessionMeta: defineTable({
    name: "session_meta",
    columns: {
      id: { name: "id", ...int },
      lastSeq: { name: "last_seq", ...int, default: 0 },
      lastRunId: { name: "last_run_id", ...text, nullable: true },
      snapshotAtSeq: { name: "snapshot_at_seq", ...int, nullable: true },
      projectId: { name: "project_id", ...text },
      conversationId: { ...conversationId, nullable: true },
      sessionKey: { name: "session_key", ...text },
      createdAt: { name: "created_at", ...int },
    },
    primaryKey: ["id"],
    checks: { session_meta_single_row: { column: "id", equals: 1 } },
  }),
};

/** One SQLite file per conversation: the resident session host's record. */
export const SQLITE_HOST_TABLES = {
  /** Submitted tasks; `ord` is the submission order. */
  hostTasks: defineTable({
    name: "host_tasks",
    columns: {
      ord: { name: "ord", ...int, autoIncrement: true },
      taskId: { name: "task_id", ...text, unique: true },
      runId: { name: "run_id", ...text },
      targetId: { name: "target_id", ...int },
      prompt: { name: "prompt", ...text },
      input: { name: "input", ...text },
      status: { name: "status", ...text },
      cancelRequested: { name: "cancel_requested", ...int, default: 0 },
      detail: { name: "detail", ...text, nullable: true },
      updatedAt: { name: "updated_at", ...int },
    },
    primaryKey: ["ord"],
    indexes: { host_tasks_status_idx: ["status"] },
  }),
  /** Contexts: the main session, forks and child sessions. */
  hostContexts: defineTable({
    name: "host_contexts",
    columns: { targetId: { name: "target_id", ...int }, kind: { name: "kind", ...text }, sessionKey: { name: "session_key", ...text }, parentTargetId: { name: "parent_target_id", ...int, nullable: true } },
    primaryKey: ["targetId"],
  }),
  /** Small settings (the active context). */
  hostSettings: defineTable({ name: "host_settings", columns: { key: { name: "key", ...text }, value: { name: "value", ...text } }, primaryKey: ["key"] }),
  /** The durable command inbox: commands for a host that may live in another process. */
  hostCommands: defineTable({
    name: "host_commands",
    columns: { seq: { name: "seq", ...int, autoIncrement: true }, command: { name: "command", ...text }, status: { name: "status", ...text }, outcome: { name: "outcome", ...text, nullable: true }, createdAt: { name: "created_at", ...int } },
    primaryKey: ["seq"],
  }),
  /** The output items of each run's turn (HOST-7 `turns[].items`), one row per run, read by run id. */
  hostTurnItems: defineTable({ name: "host_turn_items", columns: { runId: { name: "run_id", ...text }, items: { name: "items", ...text }, updatedAt: { name: "updated_at", ...int } }, primaryKey: ["runId"] }),
};

/** PostgreSQL: every session and host record of a schema in one set of tables. */
export const POSTGRES_SESSION_TABLES = {
  /**
   * One row per session: its numeric id (the events' key), its address, and what `head()`
   * returns, kept in step by every append under the row's lock. `scope` is `""` for a session
   * outside a conversation and `"c:" + conversationId` otherwise, so the address is a plain key.
   */
  sessions: defineTable({
    name: "agent_sessions",
    columns: {
      id: { name: "id", ...bigint, identity: true },
      projectId: { name: "project_id", ...text },
      scope: { name: "scope", ...text },
      conversationId: { ...conversationId, nullable: true },
      sessionKey: { name: "session_key", ...text },
      lastSeq: { name: "last_seq", ...bigint, default: 0 },
      lastRunId: { name: "last_run_id", ...text, nullable: true },
      snapshotAtSeq: { name: "snapshot_at_seq", ...bigint, nullable: true },
      createdAt: { name: "created_at", ...bigint },
    },
    primaryKey: ["id"],
    indexes: { agent_sessions_address: { columns: ["projectId", "scope", "sessionKey"], unique: true } },
  }),
  /**
   * The append-only log. (session, seq) is the primary key: reading after a seq, newest first
   * or oldest first, is a range scan of it. An event id is unique per session.
   */
  sessionEvents: defineTable({
    name: "agent_session_events",
    columns: { sessionId: { name: "session_id", ...bigint }, seq: { name: "seq", ...bigint }, eventId: { name: "event_id", ...text }, runId: { name: "run_id", ...text }, type: { name: "type", ...text }, payload: { name: "payload", ...text }, at: { name: "at", ...bigint } },
    primaryKey: ["sessionId", "seq"],
    // readRun: an index range already in seq order; the type index serves readAfter's filter.
    indexes: { agent_session_events_event_id: { columns: ["sessionId", "eventId"], unique: true }, agent_session_events_run: ["sessionId", "runId", "seq"], agent_session_events_type: ["sessionId", "type", "seq"] },
  }),
  /** The latest snapshot of a session (one row; replaced by a later one). */
  sessionSnapshots: defineTable({ name: "agent_session_snapshots", columns: { sessionId: { name: "session_id", ...bigint }, atSeq: { name: "at_seq", ...bigint }, state: { name: "state", ...text }, writtenAt: { name: "written_at", ...bigint } }, primaryKey: ["sessionId"] }),
  /** One row per conversation that has a host record; its counters give tasks and commands their order. */
  hostRecords: defineTable({
    name: "agent_host_records",
    columns: { conversationId, nextTaskOrder: { name: "next_task_order", ...int, default: 1 }, nextCommandSeq: { name: "next_command_seq", ...int, default: 1 }, createdAt: { name: "created_at", ...bigint } },
    primaryKey: ["conversationId"],
  }),
  /** Submitted tasks; `ord` is the submission order within the conversation. */
  hostTasks: defineTable({
    name: "agent_host_tasks",
    columns: {
      conversationId,
      taskId: { name: "task_id", ...text },
      ord: { name: "ord", ...int },
      runId: { name: "run_id", ...text },
      targetId: { name: "target_id", ...int },
      prompt: { name: "prompt", ...text },
      input: { name: "input", ...text },
      status: { name: "status", ...text },
      cancelRequested: { name: "cancel_requested", kind: "boolean", default: false },
      detail: { name: "detail", ...text, nullable: true },
      updatedAt: { name: "updated_at", ...bigint },
    },
    primaryKey: ["conversationId", "taskId"],
    indexes: { agent_host_tasks_order: { columns: ["conversationId", "ord"], unique: true } },
  }),
  /** Contexts of a host: the main session, forks and child sessions. */
  hostContexts: defineTable({
    name: "agent_host_contexts",
    columns: { conversationId, targetId: { name: "target_id", ...int }, kind: { name: "kind", ...text }, sessionKey: { name: "session_key", ...text }, parentTargetId: { name: "parent_target_id", ...int, nullable: true } },
    primaryKey: ["conversationId", "targetId"],
  }),
  /** Small settings of a host (the active context). */
  hostSettings: defineTable({ name: "agent_host_settings", columns: { conversationId, key: { name: "key", ...text }, value: { name: "value", ...text } }, primaryKey: ["conversationId", "key"] }),
  /** The durable command inbox: commands for a host that may run in another process or on another machine. */
  hostCommands: defineTable({
    name: "agent_host_commands",
    columns: { conversationId, seq: { name: "seq", ...int }, command: { name: "command", ...text }, status: { name: "status", ...text }, outcome: { name: "outcome", ...text, nullable: true }, createdAt: { name: "created_at", ...bigint } },
    primaryKey: ["conversationId", "seq"],
  }),
  /** The output items of each run's turn (HOST-7 `turns[].items`), one row per run, read by its key. */
  hostTurnItems: defineTable({ name: "agent_host_turn_items", columns: { conversationId, runId: { name: "run_id", ...text }, items: { name: "items", ...text }, updatedAt: { name: "updated_at", ...bigint } }, primaryKey: ["conversationId", "runId"] }),
};
