import { openAgent } from "../agent/create-agent.js";
import type { Agent, AgentOptions } from "../agent/types.js";
import { estimateTokens, type AgentContextUsage } from "../../domain/agent/context-meter.js";
import { completeToolResults } from "../../domain/agent/history.js";
import { messagesFromEvents } from "../../domain/agent/session-events.js";
import { wrapAdapterError } from "../../domain/errors.js";
import type { AgentSessionContextRecord } from "../../domain/session-host/host-state.js";
import type { ModelMessage } from "../../ports/model-provider.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { SessionStore } from "../../ports/session-store.js";

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
  /** Where the contexts' session logs live; the host holds the main session's lease from it. */
  sessions: SessionBackend;
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
    const from = head.snapshot?.atSeq ?? 0;
    // A new log (or one whose snapshot is its last event) has nothing after it to read.
    const events = head.lastSeq > from ? await store.readAfter(from, { types: ["user_message", "assistant_message", "tool_result"] }) : [];
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
 * Opens a context: its session log in the host's backend (SES-1, the same session the agent's
 * runs use), created when missing, and an agent bound to it. The host holds the main session's
 * lease, so the log is opened without one; it stays open as long as the host.
 *
 * @example
 * const context = await openHostContext(options, { targetId: 0, kind: "main", sessionKey: "agent", parentTargetId: null });
 */
export async function openHostContext(options: HostContextFactoryOptions, record: AgentSessionContextRecord): Promise<HostContext> {
  const address = { projectId: options.projectId, conversationId: options.conversationId, sessionKey: record.sessionKey };
  const store = (await options.sessions.openUnleased({ address, create: true }))!;
  const agent = openAgent({ ...options.agentOptions(record), sessionKey: record.sessionKey, sessionStore: store });
  return { record, store, agent };
}
