/**
 * KV keys the runtime owns (CAP-5). The KV capability shares its namespace with the runtime, so
 * writes (set, delete) to these keys are refused with `input_validation`; reads are allowed.
 *
 * Matching is exact and case-sensitive on the key as given, because the runtime writes exactly
 * these strings and a different string can never overwrite them. Near-misses are therefore
 * ordinary keys, writable in both scopes:
 * - `tokenUsage.totalX`, `tokenUsage.total.x`, `tokenUsage.entry` (no dot) — other keys;
 * - `TokenUsage.total`, `tokenusage.entry.x`, `Agent.x`, `CONVERSATION.STATE` — other casing;
 * - `agent` (no dot), `agents.x`, `agentX`, ` agent.x` (leading space) — not under `agent.`;
 * - `conversation.state` and `agent.*` in project scope — the runtime keeps them per conversation.
 * `tokenUsage.entry.` with an empty suffix is reserved (it is under the prefix).
 */
import { SteamharnessError } from "../errors.js";

/** The running total of token usage, in both scopes. */
export const TOKEN_USAGE_TOTAL_KEY = "tokenUsage.total";
/** Prefix of one model response's usage entry, in both scopes: `tokenUsage.entry.<entryId>`. */
export const TOKEN_USAGE_ENTRY_PREFIX = "tokenUsage.entry.";
/** A conversation's run state, in conversation scope. */
export const CONVERSATION_STATE_KEY = "conversation.state";
/** Prefix of agent run state in conversation scope (e.g. `agent.pendingPlanApproval`). */
export const AGENT_KEY_PREFIX = "agent.";

/** The scope of a KV key. */
export type KvScope = "project" | "conversation";

/**
 * True when `key` is reserved for the runtime in `scope`.
 *
 * @example
 * isReservedKvKey("tokenUsage.entry.r1", "project")           // true
 * isReservedKvKey("agent.pendingPlanApproval", "conversation") // true
 * isReservedKvKey("agent.pendingPlanApproval", "project")      // false
 * isReservedKvKey("tokenUsage.totalX", "project")              // false (near-miss)
 */
export function isReservedKvKey(key: string, scope: KvScope): boolean {
  if (key === TOKEN_USAGE_TOTAL_KEY || key.startsWith(TOKEN_USAGE_ENTRY_PREFIX)) return true;
  if (scope !== "conversation") return false;
  return key === CONVERSATION_STATE_KEY || key.startsWith(AGENT_KEY_PREFIX);
}

/**
 * Throws `input_validation` (field `key`, `data.reason: "reserved_key"`) when a write to `key`
 * in `scope` would touch runtime state.
 *
 * @example
 * assertWritableKvKey("notes.today", "conversation") // returns
 */
export function assertWritableKvKey(key: string, scope: KvScope): void {
  if (!isReservedKvKey(key, scope)) return;
  throw new SteamharnessError("input_validation", `key ${JSON.stringify(key)} is reserved for the runtime in ${scope} scope and cannot be written`, {
    field: "key",
    data: { reason: "reserved_key", scope },
  });
}
