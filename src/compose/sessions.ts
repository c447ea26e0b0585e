/**
 * The composition root's session wiring: which session backend a run, a history read or a
 * session host uses. Application code asks here; only this module names the adapters.
 */
import { createMemorySessionBackend } from "../adapters/memory/memory-session-backend.js";
import type { SessionBackend } from "../ports/session-backend.js";
import type { Storage } from "../ports/storage.js";

/** Sessions kept in memory per storage object, for runs that must not be durable (SES-6). */
const ephemeral = new WeakMap<Storage, SessionBackend>();
/** Explicit session files (`databasePath`) on storages whose backend has no files, per storage. */
const explicitFiles = new WeakMap<Storage, Promise<SessionBackend>>();

/**
 * The in-memory backend of a storage's non-durable sessions (SES-6: runs outside a conversation,
 * gateway runs with `hostInput`): the storage's own backend when it is in memory, else one kept
 * per storage object, so re-running a run id on the same storage replays it.
 *
 * @example
 * const backend = ephemeralSessions(context.storage);
 */
export function ephemeralSessions(storage: Storage): SessionBackend {
  if (storage.sessions && !storage.sessions.durable) return storage.sessions;
  let backend = ephemeral.get(storage);
  if (!backend) {
    backend = createMemorySessionBackend();
    ephemeral.set(storage, backend);
  }
  return backend;
}

/** Sessions of gateway runs beside a resident host, per storage object (EXT-1). */
const gateway = new WeakMap<Storage, SessionBackend>();

/**
 * An in-memory backend of a storage that is never the storage's own: for gateway runs
 * (`hostInput`) of a node whose conversation has a resident host holding the storage's session
 * lease (EXT-1). Their input is never conversation history (SES-6), so they need no lease of it.
 *
 * @example
 * const backend = gatewaySessions(context.storage);
 */
export function gatewaySessions(storage: Storage): SessionBackend {
  let backend = gateway.get(storage);
  if (!backend) {
    backend = createMemorySessionBackend();
    gateway.set(storage, backend);
  }
  return backend;
}

/**
 * The backend that opens explicit session files (a node's `databasePath`, SES-1): the storage's
 * own when it understands them (SQLite), else a SQLite backend of explicit paths that keeps no
 * file open between runs. The SQLite adapter is loaded only here, lazily.
 *
 * @example
 * const backend = await explicitFileSessions(context.storage);
 */
export async function explicitFileSessions(storage: Storage): Promise<SessionBackend> {
  if (storage.sessions?.acceptsDatabasePath) return storage.sessions;
  let backend = explicitFiles.get(storage);
  if (!backend) {
    backend = import("../adapters/sqlite/sessions/sqlite-session-backend.js").then(({ createSqliteSessionBackend }) => createSqliteSessionBackend({ maxIdleSessions: 0 }));
    explicitFiles.set(storage, backend);
  }
  return backend;
}

/**
 * A SQLite session backend on a session folder: the shorthand `agentStoreDir` of
 * `controlAgentSession`, `cancelAgentConversation` and `createAgentSessionHost`. The caller
 * closes it.
 *
 * @example
 * const backend = await sqliteSessionsAt("/data/agents");
 * try { … } finally { await backend.close(); }
 */
export async function sqliteSessionsAt(agentStoreDir: string): Promise<SessionBackend> {
  const { createSqliteSessionBackend } = await import("../adapters/sqlite/sessions/sqlite-session-backend.js");
  return createSqliteSessionBackend({ agentStoreDir });
}
