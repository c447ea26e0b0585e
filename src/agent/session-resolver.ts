import { createMemorySessionStore } from "../adapters/memory/memory-session-store.js";
import type { NodeContext } from "../domain/node-context.js";
import type { SessionAddress, SessionStore } from "../ports/session-store.js";
import type { Storage } from "../ports/storage.js";
import type { AgentOptions } from "./types.js";

/**
 * In-memory sessions live as long as their storage object: the same MemoryStorage and session
 * address give the same log, so re-running a run id in this process replays it (SES-3, SES-6).
 */
const memorySessions = new WeakMap<Storage, Map<string, SessionStore>>();

const addressKey = (address: SessionAddress): string => JSON.stringify([address.projectId, address.conversationId ?? null, address.sessionKey]);

/** The session store of a run and whether the run must close it afterwards. */
export interface OpenedSessionStore {
  store: SessionStore;
  /** True for stores opened for this run only (a factory's result); shared ones stay open. */
  owned: boolean;
}

/**
 * Chooses the session store of a run: the agent's `sessionStore` (an instance or a factory), else
 * an in-memory log kept per storage object. The durable SQLite store (SES-1: `databasePath`, or
 * `storage.agentStoreDir` with a conversation) plugs in here as a factory.
 *
 * @example
 * const { store } = await openSessionStore(options, address, context);
 */
export async function openSessionStore(options: AgentOptions, address: SessionAddress, context: NodeContext): Promise<OpenedSessionStore> {
  const configured = options.sessionStore;
  if (typeof configured === "function") return { store: await configured(address, context), owned: true };
  if (configured) return { store: configured, owned: false };
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
  return { store, owned: false };
}
