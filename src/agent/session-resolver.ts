import { existsSync } from "node:fs";
import { createMemorySessionLeaseProvider } from "../adapters/memory/memory-session-lease.js";
import { createMemorySessionStore } from "../adapters/memory/memory-session-store.js";
import { chooseSessionStorage } from "../domain/agent/session-path.js";
import type { NodeContext } from "../domain/node-context.js";
import type { SessionLeaseProvider } from "../ports/session-lease.js";
import type { SessionAddress, SessionStore } from "../ports/session-store.js";
import type { Storage } from "../ports/storage.js";
import type { SessionIdentity } from "./history-cache.js";
import type { AgentInput, AgentOptions } from "./types.js";

/**
 * In-memory sessions live as long as their storage object: the same MemoryStorage and session
 * address give the same log, so re-running a run id in this process replays it (SES-3, SES-6).
 */
const memorySessions = new WeakMap<Storage, Map<string, SessionStore>>();
/** One execution owner per in-memory session too (SES-2 within the process). */
const memoryLeases = new WeakMap<Storage, SessionLeaseProvider>();

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

/** Where a node's session lives in this context (SES-1, SES-6); runs with `hostInput` stay in memory. */
function storageChoice(options: Pick<AgentOptions, "databasePath">, context: NodeContext, hostInput: boolean): "sqlite" | "memory" {
  return chooseSessionStorage({
    ...(options.databasePath === undefined ? {} : { databasePath: options.databasePath }),
    ...(context.storage.agentStoreDir === undefined ? {} : { agentStoreDir: context.storage.agentStoreDir }),
    ...(context.conversationId === undefined ? {} : { conversationId: context.conversationId }),
    hostInput,
  });
}

/** The session store of a run and whether the run must close it afterwards. */
export interface OpenedSessionStore {
  store: SessionStore;
  /** Which session it is, when that can be told across runs (not for a factory's stores). */
  identity?: SessionIdentity;
  /** True for stores opened for this run only (a factory's result, a durable file); shared ones stay open. */
  owned: boolean;
}

/** The in-memory session held under its lease for the run; closing releases the lease, the log stays. */
async function leasedMemoryStore(address: SessionAddress, context: NodeContext, runId: string): Promise<SessionStore> {
  let leases = memoryLeases.get(context.storage);
  if (!leases) {
    leases = createMemorySessionLeaseProvider();
    memoryLeases.set(context.storage, leases);
  }
  const lease = await leases.acquire(address, { ownerId: runId, onBusy: "throw" });
  const store = memoryStore(address, context);
  return { ...store, address: store.address, close: async () => void (await lease?.release()) };
}

function memoryStore(address: SessionAddress, context: NodeContext): SessionStore {
  let sessions = memorySessions.get(context.storage);
  if (!sessions) {
    sessions = new Map();
    memorySessions.set(context.storage, sessions);
  }
  const key = addressKey(address);
  let store = sessions.get(key);
  if (!store) {
    store = createMemorySessionStore({ address, clock: context.clock });
    sessions.set(key, store);
  }
  return store;
}

/**
 * The durable session of a run (SES-1, SES-2): its SQLite file, held under the session's lease
 * for the run (a busy session fails with `session_busy`). Closing the store releases the lease.
 * The SQLite adapter is loaded lazily, so runs on MemoryStorage never load it.
 */
async function durableStore(options: AgentOptions, address: SessionAddress, context: NodeContext, runId: string): Promise<SessionStore> {
  const [{ resolveSessionDatabasePath }, { createSqliteSessionLeaseProvider }, { createSqliteSessionStore }] = await Promise.all([
    import("../adapters/sqlite-session/session-database-path.js"),
    import("../adapters/sqlite-session/sqlite-session-lease.js"),
    import("../adapters/sqlite-session/sqlite-session-store.js"),
  ]);
  const path = resolveSessionDatabasePath({ ...address, agentStoreDir: context.storage.agentStoreDir, databasePath: options.databasePath });
  const lease = await createSqliteSessionLeaseProvider().acquire({ databasePath: path }, { ownerId: runId, onBusy: "throw" });
  let store: SessionStore;
  try {
    store = createSqliteSessionStore({ path, address, clock: context.clock });
  } catch (error) {
    await lease?.release();
    throw error;
  }
  return {
    ...store,
    address: store.address,
    async close() {
      try {
        await store.close();
      } finally {
        await lease?.release();
      }
    },
  };
}

/**
 * Chooses the session store of a run: the agent's `sessionStore` (an instance or a factory) when
 * given; else the durable SQLite file for conversation runs on a storage with `agentStoreDir`,
 * or whenever `databasePath` is set (SES-1) — through the storage's `sessions` when it keeps
 * them (a warm session is not reopened), else opened for the run; else (non-conversation nodes, gateway runs with
 * `hostInput`, SES-6) an in-memory log kept per storage object.
 *
 * @example
 * const { store, owned } = await openSessionStore(options, address, context, input);
 */
export async function openSessionStore(options: AgentOptions, address: SessionAddress, context: NodeContext, input: AgentInput): Promise<OpenedSessionStore> {
  const configured = options.sessionStore;
  if (typeof configured === "function") return { store: await configured(address, context), owned: true };
  if (configured) return { store: configured, owned: false, identity: { scope: configured, key: "" } };
  const choice = storageChoice(options, context, input.hostInput !== undefined);
  const runId = input.runId ?? context.runId;
  if (choice === "sqlite") {
    const { databasePath } = options;
    const identity = { scope: context.storage, key: `file:${databasePath ?? addressKey(address)}` };
    const sessions = context.storage.sessions;
    const store = sessions
      ? await sessions.open({ address, ownerId: runId, clock: context.clock, ...(databasePath === undefined ? {} : { databasePath }) })
      : await durableStore(options, address, context, runId);
    return { store, owned: true, identity };
  }
  return { store: await leasedMemoryStore(address, context, runId), owned: true, identity: { scope: context.storage, key: `memory:${addressKey(address)}` } };
}

/**
 * A node's session opened for reading only (its execution history): no lease — reading does not
 * take the session from a run that holds it — and nothing created: `null` when the durable file
 * or the in-memory log does not exist. The same choice of store as a run's (SES-1, SES-6) for a
 * run without `hostInput`. `close()` releases what was opened for the read.
 *
 * @example
 * const opened = await openSessionForReading({ sessionKey: "agent" }, context);
 * try { … } finally { await opened?.close(); }
 */
export async function openSessionForReading(
  options: Pick<AgentOptions, "sessionKey" | "sessionId" | "databasePath" | "sessionStore">,
  context: NodeContext,
): Promise<{ store: SessionStore; close(): Promise<void> } | null> {
  const address = sessionAddressOf(options, context);
  const configured = options.sessionStore;
  if (typeof configured === "function") {
    const store = await configured(address, context);
    return { store, close: () => store.close() };
  }
  if (configured) return { store: configured, close: async () => {} };
  const choice = storageChoice(options, context, false);
  if (choice === "memory") {
    const store = memorySessions.get(context.storage)?.get(addressKey(address));
    return store ? { store, close: async () => {} } : null;
  }
  const [{ resolveSessionDatabasePath }, { createSqliteSessionStore }] = await Promise.all([
    import("../adapters/sqlite-session/session-database-path.js"),
    import("../adapters/sqlite-session/sqlite-session-store.js"),
  ]);
  const path = resolveSessionDatabasePath({ ...address, agentStoreDir: context.storage.agentStoreDir, databasePath: options.databasePath });
  if (!existsSync(path)) return null;
  // A second connection to the file: WAL lets it read while the owner's connection writes.
  const store = createSqliteSessionStore({ path, address, clock: context.clock });
  return { store, close: () => store.close() };
}
