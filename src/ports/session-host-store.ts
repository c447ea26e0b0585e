import type { JsonObject } from "../domain/json.js";
import type { AgentSessionContextRecord, AgentSessionTaskRecord, AgentSessionTaskStatus } from "../domain/session-host/host-state.js";

/** A command waiting in (or answered through) the durable inbox. */
export interface AgentSessionInboxEntry {
  seq: number;
  command: JsonObject;
}

/** The answer a host wrote for an inbox command. */
export interface AgentSessionInboxOutcome {
  status: "pending" | "done" | "failed";
  result: JsonObject | null;
  error: { code: string; message: string } | null;
}

/**
 * The durable record of a conversation's resident host (HOST-1 … HOST-5, HOST-7): its tasks, contexts,
 * small settings, each turn's output items and the command inbox through which another process reaches it. One store per
 * conversation; several processes may open it at once (the session lease decides who executes,
 * any process may write commands and cancel intents).
 *
 * Contract: every write is atomic and durable when its promise resolves (a SIGKILL right after
 * keeps it); reads return copies; faults reject with `storage_failure`.
 */
export interface AgentSessionHostStore {
  /** Every task, in submission order. */
  listTasks(): Promise<AgentSessionTaskRecord[]>;
  /**
   * UI-2: the tasks matching `query`, in submission order — with `status`, those in one of its
   * states; with `runId`, that run's; with `last`, only the last `last` of those. One indexed read
   * whatever the length of the task history, so a long chat's turns do not slow down with it.
   */
  findTasks(query: { status?: readonly AgentSessionTaskStatus[]; runId?: string; last?: number }): Promise<AgentSessionTaskRecord[]>;
  /** The task, or `null`. */
  getTask(taskId: string): Promise<AgentSessionTaskRecord | null>;
  /**
   * UI-5: the steer tasks (queued with `input.steer === true`, which is fixed when the task is
   * added) of context `targetId` that are still `queued`, carry no cancel intent and come after
   * order `afterOrder`, in submission order; `[]` when none. A running turn asks this at every
   * step boundary, so it is one indexed read whatever the length of the task history, and it
   * sees tasks any process added to the record.
   */
  queuedSteerTasks(targetId: number, afterOrder: number): Promise<AgentSessionTaskRecord[]>;
  /** Adds a task at the end of the order; an existing `taskId` is returned unchanged (`created: false`). */
  insertTask(task: Omit<AgentSessionTaskRecord, "order" | "cancelRequested">): Promise<{ task: AgentSessionTaskRecord; created: boolean }>;
  /**
   * Moves a task to `status` (with `detail`, `input` when given). A task with a persisted cancel
   * intent only ever moves to `cancelled`: resolves `false` and changes nothing otherwise.
   */
  updateTask(taskId: string, patch: { status: AgentSessionTaskStatus; detail?: JsonObject | null; input?: JsonObject }): Promise<boolean>;
  /**
   * Persists a cancel intent on the given active tasks (default: every active one) and resolves
   * their ids. The intent is final: the task is never run again (HOST-5).
   */
  requestCancel(taskIds?: readonly string[]): Promise<string[]>;
  /** Marks every task with a cancel intent that is still active as `cancelled`; resolves their ids. */
  clearCancelled(): Promise<string[]>;
  /** The contexts, by `targetId`. */
  listContexts(): Promise<AgentSessionContextRecord[]>;
  /** Records a context (idempotent by `targetId`). */
  putContext(context: AgentSessionContextRecord): Promise<void>;
  /** A small setting (the active context), or `null`. */
  getSetting(key: string): Promise<string | null>;
  setSetting(key: string, value: string): Promise<void>;
  /**
   * Records the output items of a run's turn (HOST-7 `turns[].items`), in output order, replacing
   * what was recorded for `runId` before (a resumed run rebuilds all of its items). Items are JSON.
   */
  putTurnItems(runId: string, items: readonly JsonObject[]): Promise<void>;
  /** The items recorded for `runId` (a copy), or `null` when none were. One keyed read, whatever the history's length. */
  getTurnItems(runId: string): Promise<JsonObject[] | null>;
  /** Appends a command to the inbox; resolves its `seq`. */
  enqueueCommand(command: JsonObject): Promise<number>;
  /** Unanswered commands with `seq > afterSeq`, oldest first. */
  pendingCommands(afterSeq: number): Promise<AgentSessionInboxEntry[]>;
  /** Records a command's answer. */
  answerCommand(seq: number, outcome: { result: JsonObject } | { error: { code: string; message: string } }): Promise<void>;
  /** The answer of a command, or `null` for an unknown `seq`. */
  commandOutcome(seq: number): Promise<AgentSessionInboxOutcome | null>;
  /** Releases handles. Idempotent. */
  close(): Promise<void>;
}
