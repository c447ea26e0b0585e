import type { SessionEvent } from "../../domain/agent/session-events.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { SessionStore } from "../../ports/session-store.js";
import { openSessionForReading } from "./session-resolver.js";
import type { AgentInternalOptions, AgentOptions } from "./types.js";

/**
 * How a run ended: its finish, else its latest stop; `running` when it never stopped (still in
 * progress, or its process died first).
 */
export type ExecutionStatus = "completed" | "waiting" | "cancelled" | "failed" | "running";

/** One entry of a node's execution history. */
export interface ExecutionRecord {
  runId: string;
  status: ExecutionStatus;
  prompt: string;
  toolCallCount: number;
  /** When the run last stopped or finished (its start while it has not stopped; epoch ms). */
  at: number;
}

/** The default bound of a node's execution history (AG-3 `historyLimit`). */
export const DEFAULT_HISTORY_LIMIT = 50;

/** Which session to read, and how many runs. */
export interface ExecutionHistoryOptions extends Pick<AgentOptions, "sessionKey" | "sessionId" | "databasePath" | "sessions"> {
  /** At most this many runs, the newest (default {@link DEFAULT_HISTORY_LIMIT}). */
  limit?: number;
}

/**
 * The newest `limit` runs of a session log, oldest first, each with how it ended (the status of
 * its `run_finished` or last `run_stopped` event). Two bounded reads: the last `limit` run starts
 * (read backwards from the end of the log), then the end events after the oldest of them — the
 * cost follows the runs returned, not the session's length.
 *
 * @example
 * const runs = await executionHistoryOf(store, 50);
 */
export async function executionHistoryOf(store: SessionStore, limit: number): Promise<ExecutionRecord[]> {
  const starts = await store.readAfter(0, { types: ["run_started"], newestFirst: true, limit });
  if (starts.length === 0) return [];
  const oldest = starts.at(-1)!.seq;
  const ends = new Map<string, SessionEvent>();
  for (const event of await store.readAfter(oldest, { types: ["run_finished", "run_stopped"] })) {
    // A run's finish is final; otherwise its latest stop counts.
    if (ends.get(event.runId)?.type !== "run_finished") ends.set(event.runId, event);
  }
  return starts.reverse().map((start): ExecutionRecord => {
    const end = ends.get(start.runId);
    const prompt = start.type === "run_started" ? start.payload.prompt : "";
    if (end?.type === "run_finished") return { runId: start.runId, status: "completed", prompt, toolCallCount: end.payload.toolCallCount, at: end.at };
    if (end?.type === "run_stopped") return { runId: start.runId, status: end.payload.status, prompt, toolCallCount: end.payload.toolCallCount, at: end.at };
    return { runId: start.runId, status: "running", prompt, toolCallCount: 0, at: start.at };
  });
}

/**
 * A node's execution history (AG-3 `historyLimit`), oldest first: its newest runs as its session
 * log records them — the durable session is the only record of what ran (SES-1). Reads without
 * taking the session's lease (a running owner keeps it), and creates nothing: a session that
 * was never written has no history. Pass the node's `sessionKey` (default `"agent"`),
 * `sessions` or `databasePath` when it has them; `createAgentNode(...).history(context)`
 * passes its own.
 *
 * @example
 * const runs = await readExecutionHistory(context, { sessionKey: "agent", limit: 10 });
 */
export async function readExecutionHistory(context: NodeContext, options: string | ExecutionHistoryOptions = {}): Promise<ExecutionRecord[]> {
  const settings = typeof options === "string" ? { sessionKey: options } : options;
  // A node on an internal session store (AgentInternalOptions) reads its history there.
  const opened = await openSessionForReading(settings as ExecutionHistoryOptions & Pick<AgentInternalOptions, "sessionStore">, context);
  if (!opened) return [];
  try {
    return await executionHistoryOf(opened.store, settings.limit ?? DEFAULT_HISTORY_LIMIT);
  } finally {
    await opened.close();
  }
}
