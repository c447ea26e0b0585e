import { SteamharnessError } from "../../domain/errors.js";
import type { AgentSessionCommand } from "../../domain/session-host/commands.js";
import type { OutputItemStreamChunk } from "../../domain/output-items.js";
import type { SessionStore } from "../../ports/session-store.js";
import type { HostRunRequest } from "./host-runs.js";
import type { AgentSessionCommandResult } from "./types.js";

/** What the in-process registry knows of a live host. */
export interface RegisteredSessionHost {
  control(command: AgentSessionCommand): Promise<AgentSessionCommandResult>;
  /** Stops the running task after a cancel intent was persisted by someone else (HOST-5). */
  abortCancelled(): void;
  /** Runs a node's run on the host's lane and streams its chunks (EXT-1). */
  run(request: HostRunRequest): AsyncIterable<OutputItemStreamChunk>;
  /** The main context's session log, opened under the host's lease (for runs that must not take it). */
  mainStore(): SessionStore | null;
  /** The main context's session key. */
  readonly sessionKey: string;
  /** The id of the task the host runs (or is starting) now, or `null`. */
  runningTask(): string | null;
  /** Listens to every chunk the host emits (runs, compaction rows, snapshots); returns the unsubscribe. */
  subscribe(listener: (chunk: OutputItemStreamChunk) => void): () => void;
}

/**
 * The live hosts of this process by conversationId: how `controlAgentSession` reaches a host
 * without a round trip through the durable inbox. A slot is reserved before the lease is taken,
 * so two opens in one process never race for it.
 */
const hosts = new Map<string, RegisteredSessionHost | "opening">();

/**
 * Reserves the conversation's slot; throws `session_busy` when a host of this process has it.
 *
 * @example
 * reserveHostSlot("conv-1");
 */
export function reserveHostSlot(conversationId: string): void {
  if (hosts.has(conversationId)) {
    throw new SteamharnessError("session_busy", `[steamharness] conversation ${conversationId} already has a session host in this process`, { data: { conversationId } });
  }
  hosts.set(conversationId, "opening");
}

/**
 * Fills a reserved slot with the live host.
 *
 * @example
 * registerHost("conv-1", host);
 */
export function registerHost(conversationId: string, host: RegisteredSessionHost): void {
  hosts.set(conversationId, host);
}

/**
 * Frees the slot (host closed, suspended, or failed to open).
 *
 * @example
 * releaseHostSlot("conv-1");
 */
export function releaseHostSlot(conversationId: string): void {
  hosts.delete(conversationId);
}

/**
 * The live host of a conversation in this process, or `null`.
 *
 * @example
 * liveHost("conv-1")?.control({ type: "cancel" });
 */
export function liveHost(conversationId: string): RegisteredSessionHost | null {
  const host = hosts.get(conversationId);
  return host === undefined || host === "opening" ? null : host;
}
