import { chooseSessionStorage } from "../../domain/agent/session-choice.js";
import { SteamharnessError } from "../../domain/errors.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { SessionAddress, SessionStore } from "../../ports/session-store.js";
import type { SessionIdentity } from "./history-cache.js";
import type { AgentInput, AgentInternalOptions, AgentOptions } from "./types.js";

const addressKey = (address: SessionAddress): string => JSON.stringify([address.projectId, address.conversationId ?? null, address.sessionKey]);

/**
 * The session a node's runs use in this context: its `sessionKey`, else its `sessionId`, else
 * `"agent"`, within the context's project and conversation.
 *
 * @example
 * sessionAddressOf({ sessionKey: "writer" }, context) // { projectId, conversationId, sessionKey: "writer" }
 */
export function sessionAddressOf(options: Pick<AgentOptions, "sessionKey" | "sessionId">, context: Pick<NodeContext, "projectId" | "conversationId">): SessionAddress {
  const sessionKey = options.sessionKey ?? options.sessionId ?? "agent";
  return { projectId: context.projectId, sessionKey, ...(context.conversationId === undefined ? {} : { conversationId: context.conversationId }) };
}

/**
 * The session backend of a node's runs in this context: the agent's `sessions` when given
 * (ARCH-10, EXT-6); else (SES-1, SES-6) the storage's backend for conversation runs when it is
 * durable; explicit `databasePath` files through a backend that understands them; otherwise (runs
 * outside a conversation, runs with `hostInput`, storages without a durable backend) the
 * storage's in-memory sessions.
 */
async function backendFor(options: Pick<AgentOptions, "databasePath" | "sessions">, context: NodeContext, hostInput: boolean): Promise<SessionBackend> {
  const { databasePath } = options;
  if (options.sessions) return options.sessions;
  const choice = chooseSessionStorage({
    durableBackend: context.storage.sessions?.durable === true,
    ...(databasePath === undefined ? {} : { databasePath }),
    ...(context.conversationId === undefined ? {} : { conversationId: context.conversationId }),
    hostInput,
  });
  if (choice === "memory") return context.runtime.ephemeralSessions(context.storage);
  if (databasePath !== undefined && databasePath !== "") return context.runtime.explicitFileSessions(context.storage);
  return context.storage.sessions!;
}

/** The session store of a run and whether the run must close it afterwards. */
export interface OpenedSessionStore {
  store: SessionStore;
  /** Which session it is, when that can be told across runs (not for a factory's stores). */
  identity?: SessionIdentity;
  /** True for stores opened for this run only (a factory's result, a durable file); shared ones stay open. */
  owned: boolean;
  /** Set when the store was opened under a lease the run took itself (OBS lease events): when the acquire began. */
  leasedAt?: number;
}

/**
 * Chooses the session store of a run: the agent's `sessionStore` (an instance or a factory) when
 * given; else the session from {@link backendFor}, opened under its lease for the run (a busy
 * session fails with `session_busy`; closing the store releases it). A warm durable session is
 * not reopened when the backend keeps it.
 *
 * @example
 * const { store, owned } = await openSessionStore(options, address, context, input);
 */
export async function openSessionStore(options: AgentInternalOptions, address: SessionAddress, context: NodeContext, input: AgentInput): Promise<OpenedSessionStore> {
  const configured = options.sessionStore;
  if (typeof configured === "function") return { store: await configured(address, context), owned: true };
  if (configured) return { store: configured, owned: false, identity: { scope: configured, key: "" } };
  const backend = await backendFor(options, context, input.hostInput !== undefined);
  const { databasePath } = options;
  const leasedAt = Date.now();
  const store = await backend.open({ address, ownerId: input.runId ?? context.runId, clock: context.clock, ...(databasePath ? { databasePath } : {}) });
  return { store, owned: true, leasedAt, identity: { scope: backend, key: databasePath ? `file:${databasePath}` : addressKey(address) } };
}

/**
 * A node's session opened for reading only (its execution history): no lease — reading does not
 * take the session from a run that holds it — and nothing created: `null` when the session was
 * never written. The same choice of backend as a run's (SES-1, SES-6) for a run without
 * `hostInput`. `close()` releases what was opened for the read.
 *
 * @example
 * const opened = await openSessionForReading({ sessionKey: "agent" }, context);
 * try { … } finally { await opened?.close(); }
 */
export async function openSessionForReading(
  options: Pick<AgentInternalOptions, "sessionKey" | "sessionId" | "databasePath" | "sessionStore" | "sessions">,
  context: NodeContext,
): Promise<{ store: SessionStore; close(): Promise<void> } | null> {
  const address = sessionAddressOf(options, context);
  const configured = options.sessionStore;
  if (typeof configured === "function") {
    const store = await configured(address, context);
    return { store, close: () => store.close() };
  }
  if (configured) return { store: configured, close: async () => {} };
  const backend = await backendFor(options, context, false);
  const { databasePath } = options;
  const store = await backend.openUnleased({ address, create: false, clock: context.clock, ...(databasePath ? { databasePath } : {}) });
  return store ? { store, close: () => store.close() } : null;
}
