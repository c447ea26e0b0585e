import { stableHash } from "../stable-hash.js";

/**
 * Every id the agent derives. They are pure functions of the run id, the session key and the
 * position in the run, so a resumed or re-sent run produces the same ids in any process (SES-3).
 */

const SEP = "\u0000";

/**
 * The id of the context ring item (AG-7): stable for a session key and distinct between keys,
 * whatever characters they hold (Chinese, spaces).
 *
 * @example
 * agentRingItemId("会话 一") // "agent-ring:…16 hex…"
 */
export function agentRingItemId(sessionKey: string): string {
  return `agent-ring:${stableHash(`ring${SEP}${sessionKey}`)}`;
}

/**
 * The id of the `agent-session` snapshot item of a session.
 *
 * @example
 * agentSessionItemId("agent")
 */
export function agentSessionItemId(sessionKey: string): string {
  return `agent-session:${stableHash(`session${SEP}${sessionKey}`)}`;
}

/**
 * The id of the n-th item a run creates (parts, notices, errors). New items of a continuation
 * get new numbers, so they never overwrite earlier output (OUT-4).
 *
 * @example
 * agentItemId("run-1", 3)
 */
export function agentItemId(runId: string, n: number): string {
  return `${agentItemIdPrefix(runId)}${n}`;
}

/**
 * The common prefix of a run's item ids (hashing once per run, not per item).
 *
 * @example
 * agentItemIdPrefix("run-1") + 3 === agentItemId("run-1", 3)
 */
export function agentItemIdPrefix(runId: string): string {
  return `agent-item:${stableHash(`item${SEP}${runId}`)}:`;
}

/**
 * The `agent-answer` id of a host-driven run that declared none: derived from the session key, so
 * it is stable for the session (a host that needs to know it in advance declares `outputItemId`).
 *
 * @example
 * agentAnswerItemId("agent")
 */
export function agentAnswerItemId(sessionKey: string): string {
  return `agent-answer:${stableHash(`answer${SEP}${sessionKey}`)}`;
}

/**
 * The model request id of a run's n-th model step (SES-3: derived from the run id).
 *
 * @example
 * modelRequestId("run-1", 0)
 */
export function modelRequestId(runId: string, step: number): string {
  return `request:${stableHash(`request${SEP}${runId}${SEP}${step}`)}`;
}

/**
 * The token-usage entry id of one model response (one attempt of one step); recording it again
 * after a resume counts nothing twice.
 *
 * @example
 * usageEntryId("run-1", 0, 1)
 */
export function usageEntryId(runId: string, step: number, attempt: number): string {
  return `usage-${stableHash(`usage${SEP}${runId}${SEP}${step}${SEP}${attempt}`)}`;
}

/**
 * The request id of an `ask_user` question, bound to the run and the tool call.
 *
 * @example
 * questionRequestId("run-1", "call_1")
 */
export function questionRequestId(runId: string, toolCallId: string): string {
  return `question:${stableHash(`question${SEP}${runId}${SEP}${toolCallId}`)}`;
}

/**
 * The stable continuation identity of the n-th plan decision of a run (SES-8).
 *
 * @example
 * planRequestId("run-1", 0)
 */
export function planRequestId(runId: string, planIndex: number): string {
  return `plan:${stableHash(`plan${SEP}${runId}${SEP}${planIndex}`)}`;
}

/**
 * The default session id of a (project, conversation, session key).
 *
 * @example
 * defaultSessionId("p1", undefined, "agent")
 */
export function defaultSessionId(projectId: string, conversationId: string | undefined, sessionKey: string): string {
  return `session-${stableHash(`sid${SEP}${projectId}${SEP}${conversationId ?? ""}${SEP}${sessionKey}`)}`;
}

/**
 * The id of a session event: the run id plus the step path. Unique in a session because run ids are.
 *
 * @example
 * runEventId("run-1", "model", 0, "attempt", 1) // "run-1/model/0/attempt/1"
 */
export function runEventId(runId: string, ...path: Array<string | number>): string {
  return [runId, ...path].join("/");
}

/**
 * The tool call id of a codemode snippet's `index`-th nested call (EXT-4): `<parent>#<index>`.
 *
 * @example
 * nestedToolCallId("call_1", 0) // "call_1#0"
 */
export function nestedToolCallId(parentToolCallId: string, index: number): string {
  return `${parentToolCallId}#${index}`;
}

/**
 * The codemode call a nested tool call belongs to, or `undefined` for a call of the model's own.
 *
 * @example
 * parentToolCallIdOf("call_1#0") // "call_1"
 */
export function parentToolCallIdOf(toolCallId: string): string | undefined {
  const at = toolCallId.lastIndexOf("#");
  return at === -1 ? undefined : toolCallId.slice(0, at);
}
