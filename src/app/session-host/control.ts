import { SteamharnessError, type SteamharnessErrorCode } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { AgentSessionHostStore } from "../../ports/session-host-store.js";
import type { HarnessRuntime } from "../../ports/runtime.js";
import type { Storage } from "../../ports/storage.js";
import { parseAgentSessionCommand, type AgentSessionCommand, type AgentSessionCommandType } from "../../domain/session-host/commands.js";
import { liveHost } from "./registry.js";
import type { AgentSessionCommandResult } from "./types.js";

/** Options of {@link controlAgentSession}. */
export interface ControlAgentSessionOptions {
  /**
   * The storage whose session backend holds the conversation's host record: needed to reach a
   * host in another process (or on another machine, with PostgreSQL) through the durable inbox.
   */
  storage?: Storage;
  /** SQLite shorthand for `storage`: the session folder of a SQLite backend. */
  agentStoreDir?: string;
  /** How long to wait for a host in another process to answer (default 5000 ms). */
  timeoutMs?: number;
  /** The adapters behind the `agentStoreDir` shorthand; the library's runtime when absent (ARCH-1). */
  runtime?: HarnessRuntime;
}

/** A command left in the durable inbox because no host answered in time; the next host (with `resume`) runs it. */
export interface AgentSessionStoredCommand {
  type: "stored";
  command: AgentSessionCommandType;
  seq: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The backend named by a storage or a session folder, and whether the caller must close it. */
async function sessionsOf(options: { storage?: Storage; agentStoreDir?: string }, runtime: HarnessRuntime): Promise<{ sessions: SessionBackend; owned: boolean } | null> {
  if (options.storage?.sessions) return { sessions: options.storage.sessions, owned: false };
  if (options.agentStoreDir) return { sessions: await runtime.sqliteSessionsAt(options.agentStoreDir), owned: true };
  return null;
}

/** Runs `work` on the conversation's host record; `null` when it has none and `create` is false. */
async function withHostStore<T>(options: { storage?: Storage; agentStoreDir?: string }, runtime: HarnessRuntime, conversationId: string, create: boolean, work: (store: AgentSessionHostStore) => Promise<T>): Promise<T | null> {
  const opened = await sessionsOf(options, runtime);
  if (!opened) return null;
  try {
    const store = await opened.sessions.openHostStore(conversationId, { create });
    if (!store) return null;
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  } finally {
    if (opened.owned) await opened.sessions.close();
  }
}

/**
 * Sends a typed command to a conversation's resident host (HOST-1). A host of this process is
 * called directly (in-process registry). Otherwise, with a `storage` (or the SQLite shorthand
 * `agentStoreDir`), the command goes into the conversation's durable inbox (its host record in
 * the storage's session backend); the host that holds the session lease — in any process, on any
 * machine sharing the backend — runs it within its poll interval and the answer
 * (or its error code) comes back here. When no host answers within `timeoutMs`, the command stays
 * in the inbox and `{ type: "stored" }` is returned: a host opened later with `resume: true` runs it.
 * Errors keep their codes: `session_busy` for a rejected `reject`-mode submit (HOST-4),
 * `input_validation` for a malformed command, `not_found` without host and storage.
 *
 * @example
 * await controlAgentSession("conv-1", { type: "submit", prompt: "Next step", mode: "reject" });
 * await controlAgentSession("conv-1", { type: "cancel" }, { storage }); // host in another process
 */
export async function controlAgentSession(conversationId: string, command: AgentSessionCommand, options: ControlAgentSessionOptions, runtime: HarnessRuntime): Promise<AgentSessionCommandResult | AgentSessionStoredCommand> {
  const parsed = parseAgentSessionCommand(command);
  const host = liveHost(conversationId);
  if (host) return host.control(parsed);
  const answered = await withHostStore(options, runtime, conversationId, true, async (store) => {
    const seq = await store.enqueueCommand(parsed as unknown as JsonObject);
    const deadline = Date.now() + (options.timeoutMs ?? 5000);
    for (;;) {
      const outcome = await store.commandOutcome(seq);
      if (outcome?.status === "done") return outcome.result as unknown as AgentSessionCommandResult;
      if (outcome?.status === "failed") throw new SteamharnessError((outcome.error?.code ?? "internal") as SteamharnessErrorCode, outcome.error?.message ?? "the command failed", { data: { seq } });
      if (Date.now() >= deadline) return { type: "stored", command: parsed.type, seq } satisfies AgentSessionStoredCommand;
      await pause(20);
    }
  });
  if (answered === null) {
    throw new SteamharnessError("not_found", `no session host for conversation ${conversationId} in this process; pass a storage with a durable session backend (or agentStoreDir) to reach one in another process`, { field: "conversationId" });
  }
  return answered;
}

/** Options of {@link cancelAgentConversation}. */
export interface CancelAgentConversationOptions {
  /** The storage whose session backend holds the conversation's host record. */
  storage?: Storage;
  /** SQLite shorthand for `storage`: the session folder of a SQLite backend. */
  agentStoreDir?: string;
  conversationId: string;
  /** The adapters behind the `agentStoreDir` shorthand; the library's runtime when absent (ARCH-1). */
  runtime?: HarnessRuntime;
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
 * await cancelAgentConversation({ storage, conversationId: "conv-1" });
 */
export async function cancelAgentConversation(options: CancelAgentConversationOptions, runtime: HarnessRuntime): Promise<{ cancelled: string[] }> {
  if (!options?.storage?.sessions && !options?.agentStoreDir) throw new SteamharnessError("input_validation", "a storage with a session backend (or agentStoreDir) is required", { field: "storage" });
  if (!options.conversationId) throw new SteamharnessError("input_validation", "conversationId is required", { field: "conversationId" });
  const cancelled =
    (await withHostStore(options, runtime, options.conversationId, false, async (store) => {
      const ids = await store.requestCancel();
      await store.clearCancelled();
      return ids;
    })) ?? [];
  liveHost(options.conversationId)?.abortCancelled();
  return { cancelled };
}
