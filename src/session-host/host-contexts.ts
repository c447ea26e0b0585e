import { createAgent } from "../agent/create-agent.js";
import type { Agent, AgentOptions } from "../agent/types.js";
import { createSqliteSessionStore } from "../adapters/sqlite-session/sqlite-session-store.js";
import { resolveSessionDatabasePath } from "../adapters/sqlite-session/session-database-path.js";
import { estimateTokens, type AgentContextUsage } from "../domain/agent/context-meter.js";
import { completeToolResults } from "../domain/agent/history.js";
import { messagesFromEvents } from "../domain/agent/session-events.js";
import { wrapAdapterError } from "../domain/errors.js";
import type { AgentSessionContextRecord } from "../domain/session-host/host-state.js";
import type { ModelMessage } from "../ports/model-provider.js";
import type { SessionStore } from "../ports/session-store.js";

/** A live context of a host: its session log and the agent that runs on it. */
export interface HostContext {
  record: AgentSessionContextRecord;
  store: SessionStore;
  agent: Agent;
}

/** What every context of one host shares. */
export interface HostContextFactoryOptions {
  projectId: string;
  conversationId: string;
  agentStoreDir: string;
  /** The agent options of the context (the session store and key are filled in here). */
  agentOptions: (record: AgentSessionContextRecord) => AgentOptions;
}

/**
 * The transcript the next run of a session starts from, read the way the agent reads it: the
 * latest snapshot (compaction, reset, fork) plus the messages logged after it.
 *
 * @example
 * const messages = await readTranscript(store);
 */
export async function readTranscript(store: SessionStore): Promise<{ messages: ModelMessage[]; lastSeq: number }> {
  try {
    const head = await store.head();
    const state = head.snapshot?.state as { messages?: ModelMessage[] } | null | undefined;
    const events = await store.readAfter(head.snapshot?.atSeq ?? 0, { types: ["user_message", "assistant_message", "tool_result"] });
    return { messages: completeToolResults([...(state?.messages ?? []), ...messagesFromEvents(events)]), lastSeq: head.lastSeq };
  } catch (error) {
    throw wrapAdapterError("session", "reading the transcript failed", error);
  }
}

/**
 * Sets a context's ring to an estimate of its transcript (after open, fork, reset, compaction),
 * the same estimate the agent makes before a run's first response (AG-7).
 *
 * @example
 * const usage = await measureContext(context, systemPrompt);
 */
export async function measureContext(context: HostContext, systemPrompt: string): Promise<AgentContextUsage> {
  const { messages } = await readTranscript(context.store);
  return context.agent.updateContextUsage({ used: estimateTokens(`${systemPrompt}${JSON.stringify(messages)}`) });
}

/**
 * Opens a context: its SQLite session file (SES-1, the same path the agent's durable store uses)
 * and an agent bound to it. The store stays open as long as the host.
 *
 * @example
 * const context = openHostContext(options, { targetId: 0, kind: "main", sessionKey: "agent", parentTargetId: null });
 */
export function openHostContext(options: HostContextFactoryOptions, record: AgentSessionContextRecord): HostContext {
  const path = resolveSessionDatabasePath({ agentStoreDir: options.agentStoreDir, conversationId: options.conversationId, sessionKey: record.sessionKey });
  const store = createSqliteSessionStore({ path, address: { projectId: options.projectId, conversationId: options.conversationId, sessionKey: record.sessionKey } });
  const agent = createAgent({ ...options.agentOptions(record), sessionKey: record.sessionKey, sessionStore: store });
  return { record, store, agent };
}
