/**
 * The agent session tables (SES-1, SES-2, HOST-1), in the table format both dialects share. They
 * are not one shape per dialect: SQLite keeps one file per session (log, snapshot, one meta row)
 * and one per conversation (the session host's record), PostgreSQL one set of tables keyed by
 * session id or conversation id for all of them. Payloads, states, task inputs and commands are
 * JSON kept as text: stored and read back byte for byte, never queried inside.
 */
import { columnOf, defineTable } from "./table-definition.js";

const [text, int, bigint] = [columnOf("text"), columnOf("integer"), columnOf("bigint")];
const [runId, status, sessionKey] = [text("run_id"), text("status"), text("session_key")];

/** One SQLite file per session. */
export const SQLITE_SESSION_TABLES = {
  /** The append-only log; `seq` is the rowid, so reading in order and by range needs no extra index. */
  sessionEvents: defineTable({
    name: "session_events",
    columns: { seq: int("seq"), eventId: text("event_id"), runId, type: text("type"), payload: text("payload"), at: int("at") },
    primaryKey: ["seq"],
    // (run_id, seq) so that readRun is an index range scan already in seq order.
    indexes: { session_events_event_id_unique: { columns: ["eventId"], unique: true }, session_events_run_seq_idx: ["runId", "seq"] },
  }),
  /** Snapshots; the store keeps only the row with the highest `at_seq`. */
  sessionSnapshots: defineTable({ name: "session_snapshots", columns: { atSeq: int("at_seq"), state: text("state"), writtenAt: int("written_at") }, primaryKey: ["atSeq"] }),
  /**
   * One row (id 1) with what `head()` returns, kept in step by every write transaction so that the
   * head is read in O(1) without scanning the log. The address is recorded for diagnostics.
   */
  sessionMeta: defineTable({
    name: "session_meta",
    columns: {
      id: int("id"), lastSeq: int("last_seq", { default: 0 }), lastRunId: text("last_run_id", { nullable: true }), snapshotAtSeq: int("snapshot_at_seq", { nullable: true }),
      projectId: text("project_id"), conversationId: text("conversation_id", { nullable: true }), sessionKey, createdAt: int("created_at"),
      // A fork (FORK-1): the session file it reads events 1..base_seq through to; null otherwise.
      baseProjectId: text("base_project_id", { nullable: true }), baseConversationId: text("base_conversation_id", { nullable: true }),
      baseSessionKey: text("base_session_key", { nullable: true }), baseSeq: int("base_seq", { nullable: true }),
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
      ord: int("ord", { autoIncrement: true }), taskId: text("task_id", { unique: true }), runId, targetId: int("target_id"), prompt: text("prompt"), input: text("input"), status,
      cancelRequested: int("cancel_requested", { default: 0 }), detail: text("detail", { nullable: true }), updatedAt: int("updated_at"),
      steer: int("steer", { default: 0 }),
    },
    primaryKey: ["ord"],
    // UI-5: a running turn asks at every step boundary for queued steer tasks after its own — an index range, not the task history.
    // UI-2: a turn's reads by state (status, then the rowid `ord`) and by run id are index ranges too.
    indexes: { host_tasks_status_idx: ["status"], host_tasks_steer_idx: ["steer", "status", "targetId", "ord"], host_tasks_run_idx: ["runId"] },
  }),
  /** Contexts: the main session, forks and child sessions. */
  hostContexts: defineTable({ name: "host_contexts", columns: { targetId: int("target_id"), kind: text("kind"), sessionKey, parentTargetId: int("parent_target_id", { nullable: true }) }, primaryKey: ["targetId"] }),
  /** Small settings (the active context). */
  hostSettings: defineTable({ name: "host_settings", columns: { key: text("key"), value: text("value") }, primaryKey: ["key"] }),
  /** The durable command inbox: commands for a host that may live in another process. */
  hostCommands: defineTable({
    name: "host_commands",
    columns: { seq: int("seq", { autoIncrement: true }), command: text("command"), status, outcome: text("outcome", { nullable: true }), createdAt: int("created_at") },
    primaryKey: ["seq"],
  }),
  /** The output items of each run's turn (HOST-7 `turns[].items`), one row per run, read by run id. */
  hostTurnItems: defineTable({ name: "host_turn_items", columns: { runId, items: text("items"), updatedAt: int("updated_at") }, primaryKey: ["runId"] }),
};

const [conversationId, createdAt, updatedAt] = [text("conversation_id"), bigint("created_at"), bigint("updated_at")];

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
      id: bigint("id", { identity: true }), projectId: text("project_id"), scope: text("scope"), conversationId: text("conversation_id", { nullable: true }), sessionKey,
      lastSeq: bigint("last_seq", { default: 0 }), lastRunId: text("last_run_id", { nullable: true }), snapshotAtSeq: bigint("snapshot_at_seq", { nullable: true }), createdAt,
      // A fork (FORK-1): the session whose events 1..base_seq it reads through to, by address as SQLite's meta row names it; null otherwise.
      baseProjectId: text("base_project_id", { nullable: true }), baseConversationId: text("base_conversation_id", { nullable: true }),
      baseSessionKey: text("base_session_key", { nullable: true }), baseSeq: bigint("base_seq", { nullable: true }),
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
    columns: { sessionId: bigint("session_id"), seq: bigint("seq"), eventId: text("event_id"), runId, type: text("type"), payload: text("payload"), at: bigint("at") },
    primaryKey: ["sessionId", "seq"],
    // readRun: an index range already in seq order; the type index serves readAfter's filter.
    indexes: { agent_session_events_event_id: { columns: ["sessionId", "eventId"], unique: true }, agent_session_events_run: ["sessionId", "runId", "seq"], agent_session_events_type: ["sessionId", "type", "seq"] },
  }),
  /** The latest snapshot of a session (one row; replaced by a later one). */
  sessionSnapshots: defineTable({ name: "agent_session_snapshots", columns: { sessionId: bigint("session_id"), atSeq: bigint("at_seq"), state: text("state"), writtenAt: bigint("written_at") }, primaryKey: ["sessionId"] }),
  /** One row per conversation that has a host record; its counters give tasks and commands their order. */
  hostRecords: defineTable({
    name: "agent_host_records",
    columns: { conversationId, nextTaskOrder: int("next_task_order", { default: 1 }), nextCommandSeq: int("next_command_seq", { default: 1 }), createdAt },
    primaryKey: ["conversationId"],
  }),
  /** Submitted tasks; `ord` is the submission order within the conversation. */
  hostTasks: defineTable({
    name: "agent_host_tasks",
    columns: {
      conversationId, taskId: text("task_id"), ord: int("ord"), runId, targetId: int("target_id"), prompt: text("prompt"), input: text("input"), status,
      cancelRequested: columnOf("boolean")("cancel_requested", { default: false }), detail: text("detail", { nullable: true }), updatedAt,
      steer: columnOf("boolean")("steer", { default: false }),
    },
    primaryKey: ["conversationId", "taskId"],
    // UI-5: queued steer tasks after a running turn's; UI-2: tasks by state and by run id (see the SQLite table).
    indexes: {
      agent_host_tasks_order: { columns: ["conversationId", "ord"], unique: true }, agent_host_tasks_steer: ["conversationId", "steer", "status", "targetId", "ord"],
      agent_host_tasks_status: ["conversationId", "status", "ord"], agent_host_tasks_run: ["conversationId", "runId", "ord"],
    },
  }),
  /** Contexts of a host: the main session, forks and child sessions. */
  hostContexts: defineTable({
    name: "agent_host_contexts",
    columns: { conversationId, targetId: int("target_id"), kind: text("kind"), sessionKey, parentTargetId: int("parent_target_id", { nullable: true }) },
    primaryKey: ["conversationId", "targetId"],
  }),
  /** Small settings of a host (the active context). */
  hostSettings: defineTable({ name: "agent_host_settings", columns: { conversationId, key: text("key"), value: text("value") }, primaryKey: ["conversationId", "key"] }),
  /** The durable command inbox: commands for a host that may run in another process or on another machine. */
  hostCommands: defineTable({
    name: "agent_host_commands",
    columns: { conversationId, seq: int("seq"), command: text("command"), status, outcome: text("outcome", { nullable: true }), createdAt },
    primaryKey: ["conversationId", "seq"],
  }),
  /** The output items of each run's turn (HOST-7 `turns[].items`), one row per run, read by its key. */
  hostTurnItems: defineTable({ name: "agent_host_turn_items", columns: { conversationId, runId, items: text("items"), updatedAt }, primaryKey: ["conversationId", "runId"] }),
};
