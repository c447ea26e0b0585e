import type { JsonValue } from "../domain/json.js";
import type { NodeContext } from "../domain/node-context.js";
import type { KvNamespace } from "../ports/kv-store.js";

/** How a recorded run ended. */
export type ExecutionStatus = "completed" | "waiting" | "cancelled" | "failed";

/** One entry of a node's execution history. */
export interface ExecutionRecord {
  runId: string;
  status: ExecutionStatus;
  prompt: string;
  toolCallCount: number;
  /** When the entry was written (epoch ms). */
  at: number;
}

/** The runtime's KV key of a node's execution history (conversation scope reserves `agent.*`, CAP-5). */
export const executionHistoryKey = (sessionKey: string): string => `agent.history.${sessionKey}`;

const namespaceOf = (context: Pick<NodeContext, "projectId" | "conversationId">): KvNamespace =>
  context.conversationId === undefined ? { projectId: context.projectId } : { projectId: context.projectId, conversationId: context.conversationId };

/**
 * Records a run in the node's execution history, keeping only the newest `limit` runs (AG-3
 * `historyLimit`). A run id already present is replaced in place, so a resumed or re-sent run
 * (SES-3) never adds a second entry. One atomic KV update, O(limit) whatever the total history.
 *
 * @example
 * await recordExecution(context, "agent", 50, { runId, status: "completed", prompt, toolCallCount: 2, at: Date.now() });
 */
export async function recordExecution(context: Pick<NodeContext, "projectId" | "conversationId" | "storage">, sessionKey: string, limit: number, record: ExecutionRecord): Promise<void> {
  await context.storage.kv.update(namespaceOf(context), executionHistoryKey(sessionKey), (current) => {
    const list = Array.isArray(current) ? (current as unknown as ExecutionRecord[]).filter((entry) => entry.runId !== record.runId) : [];
    return [...list, record].slice(-limit) as unknown as JsonValue;
  });
}

/**
 * The node's execution history, oldest first (at most `historyLimit` entries).
 *
 * @example
 * const runs = await readExecutionHistory(context, "agent");
 */
export async function readExecutionHistory(context: Pick<NodeContext, "projectId" | "conversationId" | "storage">, sessionKey = "agent"): Promise<ExecutionRecord[]> {
  const entry = await context.storage.kv.get(namespaceOf(context), executionHistoryKey(sessionKey));
  return Array.isArray(entry?.value) ? (entry.value as unknown as ExecutionRecord[]) : [];
}
