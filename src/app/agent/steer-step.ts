import { runEventId } from "../../domain/agent/ids.js";
import type { SessionEvent, SessionEventInput } from "../../domain/agent/session-events.js";
import type { SteerStepRun } from "./turn-parts.js";

type SteerEvent = Extract<SessionEvent, { type: "user_message" }>;

/**
 * The step boundary after step `step` (UI-5): the messages steered into the run join its
 * context before the next model call. Committed ones are replayed where they were taken (their
 * ids name the boundary); new ones are taken only while the next step has not been committed —
 * a replay never moves a message to another place in the log. Each is committed as a user
 * message of the run before its queued task is marked delivered, so a crash in between delivers
 * it once, here, on resume. Resolves how many messages joined.
 *
 * @example
 * await steerStep(turn, step);
 */
export async function steerStep(turn: SteerStepRun, step: number): Promise<number> {
  const { runId } = turn;
  const { steering } = turn.input;
  const prefix = `${runEventId(runId, "steer", step)}/`;
  const atBoundary = (): SteerEvent[] => [...turn.committed.values()].filter((event): event is SteerEvent => event.type === "user_message" && event.eventId.startsWith(prefix));
  let steered = atBoundary();
  const decided = turn.committed.has(runEventId(runId, "model", step + 1)) || turn.committed.has(runEventId(runId, "compact", step + 1));
  if (steered.length === 0 && steering && !decided) {
    const waiting = await steering.pending();
    const events = waiting.map((message): SessionEventInput => ({ eventId: `${prefix}${message.id}`, runId, type: "user_message", payload: { message: { role: "user", content: message.text }, steer: { id: message.id } } }));
    if (events.length > 0) await turn.append(events);
    steered = atBoundary();
  }
  for (const event of steered) {
    turn.messages.push(event.payload.message);
    turn.meter.add(typeof event.payload.message.content === "string" ? event.payload.message.content : JSON.stringify(event.payload.message.content));
  }
  const ids = steered.flatMap((event) => (event.payload.steer ? [event.payload.steer.id] : []));
  if (ids.length > 0) await steering?.delivered(ids);
  return steered.length;
}
