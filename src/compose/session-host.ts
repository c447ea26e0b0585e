/**
 * The library's session-host functions (HOST-1 … HOST-6): the application's, with the entry's
 * runtime unless the host passes its own `runtime` (ARCH-1).
 */
import { cancelAgentConversation as cancelWith, controlAgentSession as controlWith, type AgentSessionStoredCommand, type CancelAgentConversationOptions, type ControlAgentSessionOptions } from "../app/session-host/control.js";
import { createAgentSessionHost as openWith } from "../app/session-host/create-agent-session-host.js";
import type { AgentSessionCommandResult, AgentSessionHost, AgentSessionHostOptions } from "../app/session-host/types.js";
import type { AgentSessionCommand } from "../domain/session-host/commands.js";
import { defaultRuntime } from "./runtime.js";

/**
 * Opens a resident session host for a conversation (HOST-1): takes the session's execution lease
 * (one process per session; a second host anywhere gets `session_busy`, HOST-4), keeps tools,
 * session store and model between turns, and serves typed commands from this process and from
 * others through the durable inbox. With `resume: true` it recovers unfinished tasks (HOST-3).
 *
 * @example
 * const host = await createAgentSessionHost("conv-1", { projectId: "demo", storage: createSqliteStorage({ directory }), models });
 * const { taskId } = await host.control({ type: "submit", prompt: "Summarise the notes" });
 * await host.waitForTask(taskId);
 * await host.close();
 */
export function createAgentSessionHost(conversationId: string, options: AgentSessionHostOptions): Promise<AgentSessionHost> {
  return openWith(conversationId, options, options?.runtime ?? defaultRuntime());
}

/**
 * Sends a typed command to a conversation's resident host (HOST-1): a host of this process
 * directly, a host elsewhere through the durable inbox of `storage` (or `agentStoreDir`).
 *
 * @example
 * await controlAgentSession("conv-1", { type: "cancel" }, { storage });
 */
export function controlAgentSession(conversationId: string, command: AgentSessionCommand, options: ControlAgentSessionOptions = {}): Promise<AgentSessionCommandResult | AgentSessionStoredCommand> {
  return controlWith(conversationId, command, options, options.runtime ?? defaultRuntime());
}

/**
 * Clears a conversation's active tasks so that no host revives them (HOST-5). Idempotent.
 *
 * @example
 * await cancelAgentConversation({ storage, conversationId: "conv-1" });
 */
export function cancelAgentConversation(options: CancelAgentConversationOptions): Promise<{ cancelled: string[] }> {
  return cancelWith(options, options?.runtime ?? defaultRuntime());
}
