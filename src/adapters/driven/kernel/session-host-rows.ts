/**
 * The session-host record's rows, mapped once (ARCH-3) for the SQL row drivers (SQLite,
 * PostgreSQL): JSON columns as text, task and command rows to the port's records and back.
 */
import type { JsonObject } from "../../../domain/json.js";
import type { AgentSessionContextKind, AgentSessionContextRecord, AgentSessionTaskRecord, AgentSessionTaskStatus } from "../../../domain/session-host/host-state.js";
import type { AgentSessionInboxEntry, AgentSessionInboxOutcome } from "../../../ports/session-host-store.js";

/** A stored task row (`cancelRequested` is 0/1 in SQLite, a boolean in PostgreSQL). */
export interface HostTaskRow {
  taskId: string;
  runId: string;
  targetId: number;
  prompt: string;
  input: string;
  status: string;
  cancelRequested: boolean | number;
  detail: string | null;
  ord: number;
  /** UI-5: queued as a steer (`input.steer`), 0/1 in SQLite; absent in rows read without it. */
  steer?: boolean | number;
}

const json = (value: JsonObject | null): string | null => (value === null ? null : JSON.stringify(value));
const parsed = (text: string | null): JsonObject | null => (text === null ? null : (JSON.parse(text) as JsonObject));

/**
 * The port's task from its row.
 *
 * @example
 * const task = taskOf(row);
 */
export function taskOf(row: HostTaskRow): AgentSessionTaskRecord {
  const { taskId, runId, targetId, prompt } = row;
  return { taskId, runId, targetId, prompt, input: parsed(row.input)!, status: row.status as AgentSessionTaskStatus, cancelRequested: Boolean(row.cancelRequested), detail: parsed(row.detail), order: row.ord };
}

/**
 * The columns of a new task (order and cancel intent are the driver's; `steer`, kept apart from
 * the input's JSON so that the rows' `queuedSteers` is an index range, is a boolean the
 * SQLite driver stores as 0/1).
 *
 * @example
 * tx.insert(hostTasks).values({ ...taskColumns(task), updatedAt: now() });
 */
export function taskColumns(task: Omit<AgentSessionTaskRecord, "order" | "cancelRequested">) {
  const { taskId, runId, targetId, prompt, status } = task;
  return { taskId, runId, targetId, prompt, input: JSON.stringify(task.input), status, detail: json(task.detail), steer: task.input.steer === true };
}

/**
 * The columns a task move changes (status, and detail and input when given).
 *
 * @example
 * tx.update(hostTasks).set({ ...taskMoveColumns(patch), updatedAt: now() });
 */
export function taskMoveColumns(patch: { status: AgentSessionTaskStatus; detail?: JsonObject | null; input?: JsonObject }) {
  return {
    status: patch.status,
    ...(patch.detail === undefined ? {} : { detail: json(patch.detail) }),
    ...(patch.input === undefined ? {} : { input: JSON.stringify(patch.input) }),
  };
}

/**
 * The port's context from its row.
 *
 * @example
 * rows.map(contextOf);
 */
export function contextOf(row: { targetId: number; kind: string; sessionKey: string; parentTargetId: number | null }): AgentSessionContextRecord {
  return { targetId: row.targetId, kind: row.kind as AgentSessionContextKind, sessionKey: row.sessionKey, parentTargetId: row.parentTargetId };
}

/**
 * An inbox entry from its row.
 *
 * @example
 * rows.map(inboxEntryOf);
 */
export function inboxEntryOf(row: { seq: number; command: string }): AgentSessionInboxEntry {
  return { seq: row.seq, command: JSON.parse(row.command) as JsonObject };
}

/**
 * The columns of a command's answer.
 *
 * @example
 * tx.update(hostCommands).set(answerColumns({ result: { ok: true } }));
 */
export function answerColumns(outcome: { result: JsonObject } | { error: { code: string; message: string } }) {
  return "error" in outcome ? { status: "failed", outcome: JSON.stringify(outcome.error) } : { status: "done", outcome: JSON.stringify(outcome.result) };
}

/**
 * A command's outcome from its row, or `null` without one.
 *
 * @example
 * outcomeOf(row) // { status: "done", result: { … }, error: null }
 */
export function outcomeOf(row: { status: string; outcome: string | null } | undefined): AgentSessionInboxOutcome | null {
  if (!row) return null;
  const value = parsed(row.outcome);
  return {
    status: row.status as AgentSessionInboxOutcome["status"],
    result: row.status === "done" ? value : null,
    error: row.status === "failed" ? (value as unknown as { code: string; message: string }) : null,
  };
}
