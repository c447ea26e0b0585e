import { SteamharnessError } from "../errors.js";
import type { JsonObject } from "../json.js";

/**
 * The states of a resident session host (HOST-1, HOST-2):
 * `open` (accepts commands, schedules tasks) → `suspending` → `suspended` (scheduling stopped,
 * tasks kept as they are, lease released) or `closing` (waits for running work) → `closed`.
 */
export type AgentSessionHostStatus = "open" | "suspending" | "suspended" | "closing" | "closed";

/** What moves a host between states. */
export type AgentSessionHostTransition = "suspend" | "suspended" | "close" | "closed";

const HOST_TRANSITIONS: Record<AgentSessionHostStatus, Partial<Record<AgentSessionHostTransition, AgentSessionHostStatus>>> = {
  open: { suspend: "suspending", close: "closing" },
  suspending: { suspended: "suspended" },
  suspended: {},
  closing: { closed: "closed", suspend: "suspending" },
  closed: {},
};

/**
 * The next host state, or `invalid_transition`.
 *
 * @example
 * nextHostStatus("open", "suspend") // "suspending"
 */
export function nextHostStatus(status: AgentSessionHostStatus, transition: AgentSessionHostTransition): AgentSessionHostStatus {
  const next = HOST_TRANSITIONS[status][transition];
  if (next === undefined) {
    throw new SteamharnessError("invalid_transition", `a session host cannot ${transition} when ${status}`, { data: { status, transition } });
  }
  return next;
}

/**
 * The states of one submitted task. `queued` and `running` are recovered by a resumed host
 * (HOST-3); `waiting` waits for a `continue` command (SES-8); `completed`, `failed` and
 * `cancelled` are final. A task with a persisted cancel intent is never run again (HOST-5).
 */
export type AgentSessionTaskStatus = "queued" | "running" | "waiting" | "completed" | "failed" | "cancelled";

/** What moves a task between states. */
export type AgentSessionTaskTransition = "start" | "wait" | "continue" | "complete" | "fail" | "cancel";

const TASK_TRANSITIONS: Record<AgentSessionTaskStatus, Partial<Record<AgentSessionTaskTransition, AgentSessionTaskStatus>>> = {
  // A steered message (UI-5) delivered into the running turn is done without running on its own.
  queued: { start: "running", complete: "completed", cancel: "cancelled" },
  // A task that was running when its process stopped (suspend, crash) is started again.
  running: { start: "running", wait: "waiting", complete: "completed", fail: "failed", cancel: "cancelled" },
  waiting: { continue: "queued", cancel: "cancelled" },
  completed: {},
  failed: {},
  cancelled: {},
};

/**
 * The next task state, or `invalid_transition`.
 *
 * @example
 * nextTaskStatus("queued", "start") // "running"
 */
export function nextTaskStatus(status: AgentSessionTaskStatus, transition: AgentSessionTaskTransition): AgentSessionTaskStatus {
  const next = TASK_TRANSITIONS[status][transition];
  if (next === undefined) {
    throw new SteamharnessError("invalid_transition", `a session task cannot ${transition} when ${status}`, { data: { status, transition } });
  }
  return next;
}

const TRANSITION_TO: Record<AgentSessionTaskStatus, AgentSessionTaskTransition> = {
  queued: "continue",
  running: "start",
  waiting: "wait",
  completed: "complete",
  failed: "fail",
  cancelled: "cancel",
};

/**
 * Checks a move of a task to `target` (stores call it before writing); throws `invalid_transition`.
 *
 * @example
 * checkTaskMove("waiting", "queued") // ok: a continue
 */
export function checkTaskMove(status: AgentSessionTaskStatus, target: AgentSessionTaskStatus): void {
  nextTaskStatus(status, TRANSITION_TO[target]);
}

/**
 * The task-update rule every host store applies before it writes (HOST-5): a task with a
 * persisted cancel intent only ever moves to `cancelled` (`false`: write nothing); any other move
 * must be a legal transition (throws `invalid_transition`). `true`: write the update.
 *
 * @example
 * acceptTaskUpdate({ status: "running", cancelRequested: true }, "completed") // false
 * acceptTaskUpdate({ status: "running", cancelRequested: false }, "completed") // true
 */
export function acceptTaskUpdate(task: Pick<AgentSessionTaskRecord, "status" | "cancelRequested">, target: AgentSessionTaskStatus): boolean {
  if (task.cancelRequested && target !== "cancelled") return false;
  checkTaskMove(task.status, target);
  return true;
}

/**
 * Whether a task still needs the session (it makes a `reject`-mode submit busy).
 *
 * @example
 * isActiveTaskStatus("waiting") // true
 */
export function isActiveTaskStatus(status: AgentSessionTaskStatus): boolean {
  return ACTIVE_TASK_STATUSES.includes(status);
}

/** The statuses of tasks that still need the session; a cancel intent applies to these only. */
export const ACTIVE_TASK_STATUSES: readonly AgentSessionTaskStatus[] = ["queued", "running", "waiting"];

/** A task as the host store keeps it. */
export interface AgentSessionTaskRecord {
  taskId: string;
  /** The agent run id; stable across restarts, so a resumed task replays its committed steps. */
  runId: string;
  targetId: number;
  prompt: string;
  /** Per-task run input besides the prompt (effort, model, askResume). */
  input: JsonObject;
  status: AgentSessionTaskStatus;
  /** True once a cancel was requested; such a task is never run again. */
  cancelRequested: boolean;
  /** The pending request of a `waiting` task, or the failure of a `failed` one. */
  detail: JsonObject | null;
  /** Submission order. */
  order: number;
}

/** The kinds of context a host keeps. */
export type AgentSessionContextKind = "main" | "fork" | "child";

/** A context (one agent session log) of a host. */
export interface AgentSessionContextRecord {
  targetId: number;
  kind: AgentSessionContextKind;
  sessionKey: string;
  parentTargetId: number | null;
}

/**
 * The task to run next: an interrupted `running` task first (it must finish before anything
 * queued after it), else the oldest `queued` one; `null` while a task waits for input (the
 * queue behind it is held) or nothing is runnable. Tasks with a cancel intent are skipped.
 *
 * @example
 * nextRunnableTask(tasks)?.taskId
 */
export function nextRunnableTask(tasks: readonly AgentSessionTaskRecord[]): AgentSessionTaskRecord | null {
  const live = [...tasks].filter((task) => !task.cancelRequested && isActiveTaskStatus(task.status)).sort((a, b) => a.order - b.order);
  const running = live.find((task) => task.status === "running");
  if (running) return running;
  if (live.some((task) => task.status === "waiting")) return null;
  return live.find((task) => task.status === "queued") ?? null;
}
