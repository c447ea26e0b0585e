import { existsSync } from "node:fs";
import { openSqliteSessionHostStore, sessionHostDatabasePath } from "../adapters/sqlite-session-host/sqlite-session-host-store.js";
import { SteamharnessError, type SteamharnessErrorCode } from "../domain/errors.js";
import type { JsonObject } from "../domain/json.js";
import { parseAgentSessionCommand, type AgentSessionCommand, type AgentSessionCommandType } from "../domain/session-host/commands.js";
import { liveHost } from "./registry.js";
import type { AgentSessionCommandResult } from "./types.js";

/** Options of {@link controlAgentSession}. */
export interface ControlAgentSessionOptions {
  /** Needed to reach a host in another process through the durable inbox. */
  agentStoreDir?: string;
  /** How long to wait for a host in another process to answer (default 5000 ms). */
  timeoutMs?: number;
}

/** A command left in the durable inbox because no host answered in time; the next host (with `resume`) runs it. */
export interface AgentSessionStoredCommand {
  type: "stored";
  command: AgentSessionCommandType;
  seq: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends a typed command to a conversation's resident host (HOST-1). A host of this process is
 * called directly (in-process registry). Otherwise, with `agentStoreDir`, the command goes into
 * the conversation's durable inbox (its host record, next to the session files); the host that
 * holds the session lease — in any process — runs it within its poll interval and the answer
 * (or its error code) comes back here. When no host answers within `timeoutMs`, the command stays
 * in the inbox and `{ type: "stored" }` is returned: a host opened later with `resume: true` runs it.
 * Errors keep their codes: `session_busy` for a rejected `reject`-mode submit (HOST-4),
 * `input_validation` for a malformed command, `not_found` without host and `agentStoreDir`.
 *
 * @example
 * await controlAgentSession("conv-1", { type: "submit", prompt: "Next step", mode: "reject" });
 * await controlAgentSession("conv-1", { type: "cancel" }, { agentStoreDir }); // host in another process
 */
export async function controlAgentSession(conversationId: string, command: AgentSessionCommand, options: ControlAgentSessionOptions = {}): Promise<AgentSessionCommandResult | AgentSessionStoredCommand> {
  const parsed = parseAgentSessionCommand(command);
  const host = liveHost(conversationId);
  if (host) return host.control(parsed);
  if (!options.agentStoreDir) {
    throw new SteamharnessError("not_found", `no session host for conversation ${conversationId} in this process; pass agentStoreDir to reach one in another process`, { field: "conversationId" });
  }
  const store = openSqliteSessionHostStore({ path: sessionHostDatabasePath(options.agentStoreDir, conversationId) });
  try {
    const seq = await store.enqueueCommand(parsed as unknown as JsonObject);
    const deadline = Date.now() + (options.timeoutMs ?? 5000);
    for (;;) {
      const outcome = await store.commandOutcome(seq);
      if (outcome?.status === "done") return outcome.result as unknown as AgentSessionCommandResult;
      if (outcome?.status === "failed") throw new SteamharnessError((outcome.error?.code ?? "internal") as SteamharnessErrorCode, outcome.error?.message ?? "the command failed", { data: { seq } });
      if (Date.now() >= deadline) return { type: "stored", command: parsed.type, seq };
      await pause(20);
    }
  } finally {
    await store.close();
  }
}

/** Options of {@link cancelAgentConversation}. */
export interface CancelAgentConversationOptions {
  agentStoreDir: string;
  conversationId: string;
}

/**
 * Clears a conversation's active tasks so that no host revives them (HOST-5): every queued,
 * running or waiting task gets a persisted cancel intent and is marked cancelled. A host of this
 * process stops its running task at once; a host in another process stops it at its next inbox
 * poll; a host opened later (even with `resume: true`) never runs them. Idempotent; a
 * conversation without a host record resolves `{ cancelled: [] }` and creates nothing.
 *
 * The explicit stop of the seed: send `{ type: "cancel" }` (persists the intent, stops the
 * worker), then call this.
 *
 * @example
 * await controlAgentSession("conv-1", { type: "cancel" });
 * await cancelAgentConversation({ agentStoreDir, conversationId: "conv-1" });
 */
export async function cancelAgentConversation(options: CancelAgentConversationOptions): Promise<{ cancelled: string[] }> {
  if (!options?.agentStoreDir) throw new SteamharnessError("input_validation", "agentStoreDir is required", { field: "agentStoreDir" });
  if (!options.conversationId) throw new SteamharnessError("input_validation", "conversationId is required", { field: "conversationId" });
  const path = sessionHostDatabasePath(options.agentStoreDir, options.conversationId);
  if (!existsSync(path)) return { cancelled: [] };
  const store = openSqliteSessionHostStore({ path });
  let cancelled: string[];
  try {
    cancelled = await store.requestCancel();
    await store.clearCancelled();
  } finally {
    await store.close();
  }
  liveHost(options.conversationId)?.abortCancelled();
  return { cancelled };
}
