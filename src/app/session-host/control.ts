import { SteamharnessError, type SteamharnessErrorCode } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { AgentSessionHostStore } from "../../ports/session-host-store.js";
import { parseAgentSessionCommand, type AgentSessionCommand, type AgentSessionCommandType } from "../../domain/session-host/commands.js";
import { liveHost } from "./registry.js";
import type { AgentSessionCommandResult } from "./types.js";

/** Where `controlAgentSession` and `cancelAgentConversation` reach a host of another process (ARCH-4). */
export interface AgentSessionReach {
  /** The session backend that holds the conversation's host record (its durable inbox). */
  sessions?: SessionBackend;
}

/** What the application's `controlAgentSession` is called with. */
export interface ControlAgentSessionSetup extends AgentSessionReach {
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

/** Runs `work` on the conversation's host record; `null` when it has none and `create` is false, or without a backend. */
async function withHostStore<T>(sessions: SessionBackend | undefined, conversationId: string, create: boolean, work: (store: AgentSessionHostStore) => Promise<T>): Promise<T | null> {
  if (!sessions) return null;
  const store = await sessions.openHostStore(conversationId, { create });
  if (!store) return null;
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * Sends a typed command to a conversation's resident host (HOST-1). A host of this process is
 * called directly (in-process registry). Otherwise, with a session backend (`setup.sessions`),
 * the command goes into the conversation's durable inbox (its host record in that backend); the host that holds the session lease — in any process, on any
 * machine sharing the backend — runs it within its poll interval and the answer
 * (or its error code) comes back here. When no host answers within `timeoutMs`, the command stays
 * in the inbox and `{ type: "stored" }` is returned: a host opened later with `resume: true` runs it.
 * Errors keep their codes: `session_busy` for a rejected `reject`-mode submit (HOST-4),
 * `input_validation` for a malformed command, `not_found` without host and backend.
 *
 * @example
 * await sendAgentSessionCommand("conv-1", { type: "submit", prompt: "Next step", mode: "reject" }, {});
 * await sendAgentSessionCommand("conv-1", { type: "cancel" }, { sessions: storage.sessions }); // host in another process
 */
export async function sendAgentSessionCommand(conversationId: string, command: AgentSessionCommand, setup: ControlAgentSessionSetup): Promise<AgentSessionCommandResult | AgentSessionStoredCommand> {
  const parsed = parseAgentSessionCommand(command);
  const host = liveHost(conversationId);
  if (host) return host.control(parsed);
  const answered = await withHostStore(setup.sessions, conversationId, true, async (store) => {
    const seq = await store.enqueueCommand(parsed as unknown as JsonObject);
    const deadline = Date.now() + (setup.timeoutMs ?? 5000);
    for (;;) {
      const outcome = await store.commandOutcome(seq);
      if (outcome?.status === "done") return outcome.result as unknown as AgentSessionCommandResult;
      if (outcome?.status === "failed") throw new SteamharnessError((outcome.error?.code ?? "internal") as SteamharnessErrorCode, outcome.error?.message ?? "the command failed", { data: { seq } });
      if (Date.now() >= deadline) return { type: "stored", command: parsed.type, seq } satisfies AgentSessionStoredCommand;
      await pause(20);
    }
  });
  if (answered === null) {
    throw new SteamharnessError("not_found", `no session host for conversation ${conversationId} in this process; pass a storage with a durable session backend to reach one in another process`, { field: "conversationId" });
  }
  return answered;
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
 * await cancelAgentTasks("conv-1", { sessions: storage.sessions });
 */
export async function cancelAgentTasks(conversationId: string, reach: Required<AgentSessionReach>): Promise<{ cancelled: string[] }> {
  const cancelled =
    (await withHostStore(reach.sessions, conversationId, false, async (store) => {
      const ids = await store.requestCancel();
      await store.clearCancelled();
      return ids;
    })) ?? [];
  liveHost(conversationId)?.abortCancelled();
  return { cancelled };
}
