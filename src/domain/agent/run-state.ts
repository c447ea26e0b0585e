import { SteamharnessError } from "../errors.js";
import type { SessionEventInput } from "./session-events.js";

/** The states of one agent run (turn). */
export type AgentRunStatus = "new" | "running" | "waiting" | "completed" | "failed" | "cancelled";

/** What moves a run between states. */
export type AgentRunTransition = "start" | "wait" | "resume" | "complete" | "fail" | "cancel";

const TRANSITIONS: Record<AgentRunStatus, Partial<Record<AgentRunTransition, AgentRunStatus>>> = {
  new: { start: "running" },
  // A run that was running when its process died is resumed by starting it again.
  running: { start: "running", wait: "waiting", complete: "completed", fail: "failed", cancel: "cancelled" },
  waiting: { resume: "running", start: "running", cancel: "cancelled" },
  // A failed run may be re-sent: it continues after its last committed step.
  failed: { start: "running" },
  // A completed run re-sent replays its outputs and completes again without new work (SES-3).
  completed: { start: "completed" },
  cancelled: {},
};

/**
 * The next state of a run, or `invalid_transition` when the move is not allowed.
 *
 * @example
 * nextRunStatus("running", "wait") // "waiting"
 */
export function nextRunStatus(status: AgentRunStatus, transition: AgentRunTransition): AgentRunStatus {
  const next = TRANSITIONS[status][transition];
  if (next === undefined) {
    throw new SteamharnessError("invalid_transition", `an agent run cannot ${transition} when ${status}`, { data: { status, transition } });
  }
  return next;
}

/**
 * The state of a run as its committed events tell it: `new` without events, `completed` after
 * `run_finished`; when its last event is a `run_stopped`, that stop's status (`failed`,
 * `cancelled`, `waiting`); else `waiting` while an approval wait has no decision, else `running`
 * (started again after a stop, or interrupted).
 *
 * @example
 * runStatusFromEvents(await store.readRun(runId))
 */
export function runStatusFromEvents(events: readonly SessionEventInput[]): AgentRunStatus {
  if (events.length === 0) return "new";
  const waits = new Set<string>();
  for (const event of events) {
    if (event.type === "run_finished") return "completed";
    if (event.type === "approval_wait") waits.add(event.payload.requestId);
    if (event.type === "approval_decision") waits.delete(event.payload.requestId);
  }
  const last = events.at(-1)!;
  if (last.type === "run_stopped") return last.payload.status;
  return waits.size > 0 ? "waiting" : "running";
}
