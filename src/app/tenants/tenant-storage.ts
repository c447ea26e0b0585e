/**
 * TEN-3: a tenant's data namespace, written once for every store family. A remote request's
 * tenant (`principal.tenant`, e.g. `key:acme`, `oauth:user-42`) reads and writes only inside its
 * namespace, so no id another tenant used — a KV key, a document or memory id, a managed file id,
 * a persistent value, a session address, a run id — reaches that tenant's data.
 *
 * Two shapes of the same namespace, both built on {@link tenantSegment}:
 * - on disk, a tenant's stores live in their own folders, `<store dir>/tenants/<segment>/`
 *   ({@link tenantDirectory}): the shape of `mcp --http`, whose workers open SQLite by directory;
 * - over any {@link Storage} (memory, SQLite, PostgreSQL, a host's own adapters),
 *   {@link tenantStorage} keys every row by `tenant:<segment>/<projectId>` (and sessions by a
 *   namespaced conversation), reusing the project column every store already has — no migration.
 */
import { SteamharnessError } from "../../domain/errors.js";
import type { KvNamespace } from "../../ports/kv-store.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { SessionLeaseTarget } from "../../ports/session-lease.js";
import type { SessionAddress } from "../../ports/session-store.js";
import type { Storage } from "../../ports/storage.js";
import { tenantSegment } from "./tenant-segment.js";

/**
 * The project id a tenant's rows are kept under in a shared store: `tenant:<segment>/<projectId>`.
 * Segments hold no `/`, so two tenants' prefixes never overlap.
 *
 * @example
 * tenantProjectId("key:acme", "proj-1") // "tenant:key_3aacme/proj-1"
 */
export function tenantProjectId(tenant: string, projectId: string): string {
  return `tenant:${tenantSegment(tenant)}/${projectId}`;
}

/**
 * The sessions of a backend as one tenant sees them. SQLite keeps a session file per
 * conversation and key (not per project), so the conversation is namespaced too, and a session
 * outside any conversation gets the tenant's own conversation (`tenant:<segment>/`, which no
 * real conversation id under the prefix equals: ids are non-empty).
 */
function tenantSessions(base: SessionBackend, prefix: string): SessionBackend {
  const address = (given: SessionAddress): SessionAddress => ({
    projectId: `${prefix}${given.projectId}`,
    conversationId: given.conversationId === undefined ? prefix : `${prefix}${given.conversationId}`,
    sessionKey: given.sessionKey,
  });
  // An explicit database path names one file for every tenant: it is not the tenant's to use.
  const noPath = (request: { databasePath?: string }) => {
    if (request.databasePath !== undefined) throw new SteamharnessError("input_validation", "[steamharness] [tenants] a tenant's sessions are kept by address, not by an explicit databasePath", { field: "databasePath" });
  };
  return {
    kind: base.kind,
    durable: base.durable,
    acceptsDatabasePath: false,
    leases: {
      acquire: async (target: SessionLeaseTarget, options) => {
        if ("databasePath" in target) noPath(target);
        return base.leases.acquire(address(target as SessionAddress), options);
      },
    },
    open: async (request) => (noPath(request), base.open({ ...request, address: address(request.address) })),
    openUnleased: async (request) => (noPath(request), base.openUnleased({ ...request, address: address(request.address) })),
    openHostStore: (conversationId, options) => base.openHostStore(`${prefix}${conversationId}`, options),
    // Both ends in this tenant: a fork never reads or writes another tenant's session (FORK-1).
    ...(base.forkLog ? { forkLog: (request) => base.forkLog!({ ...request, from: address(request.from), to: address(request.to) }) } : {}),
    // The backend is the base storage's: its owner closes it.
    close: async () => {},
  };
}

/**
 * {@link Storage} `base` as tenant `tenant` sees it: every KV namespace, knowledge document
 * (memories included), managed file, persistent value, token-usage recorder and agent session is
 * kept under the tenant's project ids ({@link tenantProjectId}), so another tenant's scoped
 * storage neither reads, lists, searches, overwrites nor deletes it by the same id. Budgets pass
 * through (they are keyed by tenant already, BUD-4). `close()` does nothing: `base` stays its
 * owner's to close.
 *
 * @example
 * const acme = tenantStorage(storage, "key:acme");
 * await acme.kv.set({ projectId }, "greeting", "hi"); // invisible to tenantStorage(storage, "key:other")
 */
export function tenantStorage(base: Storage, tenant: string): Storage {
  // The tenant's prefix is encoded once: every row of every step is keyed by it.
  const prefix = tenantProjectId(tenant, "");
  const scoped = (projectId: string) => `${prefix}${projectId}`;
  const ns = (given: KvNamespace): KvNamespace => ({ ...given, projectId: scoped(given.projectId) });
  const { kv, knowledge, files, values } = base;
  return {
    kv: {
      get: (n, key) => kv.get(ns(n), key),
      set: (n, key, value) => kv.set(ns(n), key, value),
      delete: (n, key) => kv.delete(ns(n), key),
      list: (n, options) => kv.list(ns(n), options),
      update: (n, key, fn) => kv.update(ns(n), key, fn),
    },
    knowledge: {
      upsert: (projectId, doc) => knowledge.upsert(scoped(projectId), doc),
      get: (projectId, documentId) => knowledge.get(scoped(projectId), documentId),
      delete: (projectId, documentId) => knowledge.delete(scoped(projectId), documentId),
      list: (projectId, options) => knowledge.list(scoped(projectId), options),
      search: (projectId, query, options) => knowledge.search(scoped(projectId), query, options),
    },
    files: {
      maxBytes: files.maxBytes,
      importFile: (projectId, sourcePath, options) => files.importFile(scoped(projectId), sourcePath, options),
      put: (projectId, bytes, options) => files.put(scoped(projectId), bytes, options),
      get: (projectId, fileId) => files.get(scoped(projectId), fileId),
      read: (projectId, fileId) => files.read(scoped(projectId), fileId),
      delete: (projectId, fileId) => files.delete(scoped(projectId), fileId),
    },
    values: {
      get: (projectId, name) => values.get(scoped(projectId), name),
      set: (projectId, name, value) => values.set(scoped(projectId), name, value),
      delete: (projectId, name) => values.delete(scoped(projectId), name),
      names: (projectId) => values.names(scoped(projectId)),
    },
    ...(base.sessions ? { sessions: tenantSessions(base.sessions, prefix) } : {}),
    ...(base.tokenUsage ? { tokenUsage: (namespace: KvNamespace) => base.tokenUsage!(ns(namespace)) } : {}),
    ...(base.budgets ? { budgets: base.budgets } : {}),
    close: async () => {},
  };
}

/** Views {@link tenantStorages} keeps; past it the least recently made is made again when next asked for. */
const MAX_VIEWS = 1024;

/**
 * The tenant views of `base`, each made once ({@link tenantStorage}): a surface asks for its
 * tenant's view per request or conversation and uses it at every step (issue 43 (c)).
 *
 * @example
 * const viewOf = tenantStorages(storage);
 * viewOf("key:acme") === viewOf("key:acme"); // true
 */
export function tenantStorages(base: Storage): (tenant: string) => Storage {
  const views = new Map<string, Storage>();
  return (tenant) => {
    let view = views.get(tenant);
    if (view) return view;
    view = tenantStorage(base, tenant);
    if (views.size >= MAX_VIEWS) views.delete(views.keys().next().value!);
    views.set(tenant, view);
    return view;
  };
}
