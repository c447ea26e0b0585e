import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonObject } from "../../../domain/json.js";
import { ACTIVE_TASK_STATUSES, acceptTaskUpdate, type AgentSessionContextRecord, type AgentSessionTaskRecord } from "../../../domain/session-host/host-state.js";
import type { AgentSessionHostStore, AgentSessionInboxOutcome } from "../../../ports/session-host-store.js";

// A JSON copy: records are JSON by contract, and reads must never hand out the kept objects.
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The state of one conversation's in-memory host record, shared by every store opened on it. */
export interface MemorySessionHostRecord {
  tasks: Map<string, AgentSessionTaskRecord>;
  contexts: Map<number, AgentSessionContextRecord>;
  settings: Map<string, string>;
  turnItems: Map<string, JsonObject[]>;
  commands: Array<{ seq: number; command: JsonObject; outcome: AgentSessionInboxOutcome }>;
  nextOrder: number;
}

/**
 * A fresh, empty host record.
 *
 * @example
 * const record = createMemorySessionHostRecord();
 */
export function createMemorySessionHostRecord(): MemorySessionHostRecord {
  return { tasks: new Map(), contexts: new Map(), settings: new Map(), turnItems: new Map(), commands: [], nextOrder: 1 };
}

/**
 * The in-memory session-host store: the reference adapter of the host-store port (HOST-1 …
 * HOST-5) for sessions kept in memory. Several stores opened on one record share it (as several
 * processes share a SQLite record); closing one store leaves the record.
 *
 * @example
 * const store = createMemorySessionHostStore(createMemorySessionHostRecord());
 * await store.insertTask({ taskId: "t1", runId: "r1", targetId: 0, prompt: "hi", input: {}, status: "queued", detail: null });
 */
export function createMemorySessionHostStore(record: MemorySessionHostRecord): AgentSessionHostStore {
  let closed = false;
  const open = (): MemorySessionHostRecord => {
    if (closed) throw new SteamharnessError("unavailable", "the session host record is closed");
    return record;
  };
  const ordered = () => [...open().tasks.values()].sort((a, b) => a.order - b.order);
  const active = (taskIds?: readonly string[]) => ordered().filter((task) => ACTIVE_TASK_STATUSES.includes(task.status) && (taskIds === undefined || taskIds.includes(task.taskId)));
  return {
    listTasks: async () => copy(ordered()),
    getTask: async (taskId) => copy(open().tasks.get(taskId) ?? null),
    async insertTask(task) {
      const existing = open().tasks.get(task.taskId);
      if (existing) return { task: copy(existing), created: false };
      const stored: AgentSessionTaskRecord = { ...copy(task), order: record.nextOrder++, cancelRequested: false };
      record.tasks.set(task.taskId, stored);
      return { task: copy(stored), created: true };
    },
    async updateTask(taskId, patch) {
      const task = open().tasks.get(taskId);
      if (!task) throw new SteamharnessError("not_found", `no task ${taskId}`);
      if (!acceptTaskUpdate(task, patch.status)) return false;
      task.status = patch.status;
      if (patch.detail !== undefined) task.detail = copy(patch.detail);
      if (patch.input !== undefined) task.input = copy(patch.input);
      return true;
    },
    async requestCancel(taskIds) {
      const tasks = active(taskIds);
      for (const task of tasks) task.cancelRequested = true;
      return tasks.map((task) => task.taskId);
    },
    async clearCancelled() {
      const tasks = active().filter((task) => task.cancelRequested);
      for (const task of tasks) task.status = "cancelled";
      return tasks.map((task) => task.taskId);
    },
    listContexts: async () => copy([...open().contexts.values()].sort((a, b) => a.targetId - b.targetId)),
    async putContext(context) {
      if (!open().contexts.has(context.targetId)) record.contexts.set(context.targetId, copy(context));
    },
    getSetting: async (key) => open().settings.get(key) ?? null,
    async setSetting(key, value) {
      open().settings.set(key, value);
    },
    async putTurnItems(runId, items) {
      open().turnItems.set(runId, copy([...items]));
    },
    getTurnItems: async (runId) => copy(open().turnItems.get(runId) ?? null),
    async enqueueCommand(command) {
      const seq = (open().commands.at(-1)?.seq ?? 0) + 1;
      record.commands.push({ seq, command: copy(command), outcome: { status: "pending", result: null, error: null } });
      return seq;
    },
    pendingCommands: async (afterSeq) => copy(open().commands.filter((entry) => entry.seq > afterSeq && entry.outcome.status === "pending").map(({ seq, command }) => ({ seq, command }))),
    async answerCommand(seq, outcome) {
      const entry = open().commands.find((candidate) => candidate.seq === seq);
      if (!entry) return;
      entry.outcome = "error" in outcome ? { status: "failed", result: null, error: copy(outcome.error) } : { status: "done", result: copy(outcome.result), error: null };
    },
    commandOutcome: async (seq) => copy(open().commands.find((entry) => entry.seq === seq)?.outcome ?? null),
    async close() {
      closed = true;
    },
  };
}
