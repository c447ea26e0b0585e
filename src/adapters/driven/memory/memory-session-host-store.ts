import type { JsonObject } from "../../../domain/json.js";
import { ACTIVE_TASK_STATUSES, type AgentSessionContextRecord, type AgentSessionTaskRecord } from "../../../domain/session-host/host-state.js";
import type { AgentSessionHostStore, AgentSessionInboxOutcome } from "../../../ports/session-host-store.js";
import { contextOf, outcomeOf, taskColumns, taskOf, type HostTaskRow } from "../kernel/session-host-rows.js";
import { createSessionHostStore } from "../kernel/session-host-store.js";
import { directCall } from "../kernel/store-call.js";

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
 * UI-5: the ids of each record's steer tasks in submission order (orders only grow, so appending
 * keeps it sorted): the memory store's index for `queuedSteerTasks`, shared by every store opened
 * on the record and built from its tasks on first use.
 */
const steerIndex = new WeakMap<MemorySessionHostRecord, string[]>();
function steersOf(record: MemorySessionHostRecord): string[] {
  let ids = steerIndex.get(record);
  if (!ids) {
    ids = [...record.tasks.values()].filter((task) => task.input.steer === true).sort((a, b) => a.order - b.order).map((task) => task.taskId);
    steerIndex.set(record, ids);
  }
  return ids;
}

/**
 * The in-memory session-host store: the reference adapter of the host-store port (HOST-1 …
 * HOST-5) for sessions kept in memory, the kernel's host store over the record's maps. Several
 * stores opened on one record share it (as several processes share a SQLite record); closing one
 * store leaves the record. The maps hold the port's records; rows pass through JSON text, so a
 * read never hands out a kept object.
 *
 * @example
 * const store = createMemorySessionHostStore(createMemorySessionHostRecord());
 * await store.insertTask({ taskId: "t1", runId: "r1", targetId: 0, prompt: "hi", input: {}, status: "queued", detail: null });
 */
export function createMemorySessionHostStore(record: MemorySessionHostRecord): AgentSessionHostStore {
  const rowOf = (task: AgentSessionTaskRecord): HostTaskRow => ({ ...task, ...taskColumns(task), ord: task.order });
  const ordered = () => [...record.tasks.values()].sort((a, b) => a.order - b.order);
  const commandAt = (seq: number) => record.commands.find((entry) => entry.seq === seq);
  return createSessionHostStore(
    {
      tasks: () => ordered().map(rowOf),
      findTasks: ({ status, runId, last }) => {
        const tasks = ordered().filter((task) => (status === undefined || status.includes(task.status)) && (runId === undefined || task.runId === runId));
        return (last === undefined ? tasks : tasks.slice(Math.max(0, tasks.length - last))).map(rowOf);
      },
      task: (taskId) => {
        const task = record.tasks.get(taskId);
        return task && rowOf(task);
      },
      queuedSteers: (targetId, afterOrder) =>
        steersOf(record)
          .map((taskId) => record.tasks.get(taskId)!)
          .filter((task) => task.status === "queued" && !task.cancelRequested && task.targetId === targetId && task.order > afterOrder)
          .map(rowOf),
      insertTask(columns) {
        const existing = record.tasks.get(columns.taskId);
        if (existing) return { row: rowOf(existing), created: false };
        const steers = steersOf(record);
        const task = taskOf({ ...columns, cancelRequested: false, ord: record.nextOrder++ });
        record.tasks.set(task.taskId, task);
        if (columns.steer) steers.push(task.taskId);
        return { row: rowOf(task), created: true };
      },
      moveTask(taskId, decide) {
        const task = record.tasks.get(taskId);
        const move = decide(task);
        if (move === null) return false;
        record.tasks.set(taskId, taskOf({ ...rowOf(task!), ...move }));
        return true;
      },
      markActive(mark, taskIds) {
        const chosen = (task: AgentSessionTaskRecord) => (mark === "cancelled" ? task.cancelRequested : taskIds === undefined || taskIds.includes(task.taskId));
        const tasks = ordered().filter((task) => ACTIVE_TASK_STATUSES.includes(task.status) && chosen(task));
        for (const task of tasks) Object.assign(task, mark === "cancelled" ? { status: "cancelled" } : { cancelRequested: true });
        return tasks.map((task) => task.taskId);
      },
      contexts: () => [...record.contexts.values()].sort((a, b) => a.targetId - b.targetId),
      putContext: (context) => void (record.contexts.has(context.targetId) || record.contexts.set(context.targetId, contextOf(context))),
      getSetting: (key) => record.settings.get(key),
      setSetting: (key, value) => void record.settings.set(key, value),
      putTurnItems: (runId, items) => void record.turnItems.set(runId, JSON.parse(items) as JsonObject[]),
      getTurnItems: (runId) => (record.turnItems.has(runId) ? JSON.stringify(record.turnItems.get(runId)) : undefined),
      enqueue(command) {
        const seq = (record.commands.at(-1)?.seq ?? 0) + 1;
        record.commands.push({ seq, command: JSON.parse(command) as JsonObject, outcome: { status: "pending", result: null, error: null } });
        return seq;
      },
      pending: (afterSeq) => record.commands.filter((entry) => entry.seq > afterSeq && entry.outcome.status === "pending").map(({ seq, command }) => ({ seq, command: JSON.stringify(command) })),
      answer(seq, columns) {
        const entry = commandAt(seq);
        if (entry) entry.outcome = outcomeOf(columns)!;
      },
      outcome(seq) {
        const outcome = commandAt(seq)?.outcome;
        return outcome && { status: outcome.status, outcome: JSON.stringify(outcome.result ?? outcome.error) };
      },
      close: () => {},
    },
    directCall,
  );
}
