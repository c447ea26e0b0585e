import { SteamharnessError } from "../../../domain/errors.js";
import type { SessionCatalog } from "../../../ports/session-catalog.js";
import type { Storage } from "../../../ports/storage.js";

/**
 * The session catalog of a storage's session backend: for the SQLite backend, the catalog of its
 * session folder, opened by `openFolderCatalog` (the entry's, ARCH-6). Another backend
 * (PostgreSQL, a host's own) brings its catalog (its index rows) to the viewer through
 * `createViewerServer({ catalog })`; without one this throws `unavailable`.
 *
 * @example
 * const catalog = await sessionCatalogOf(storage, services.localSessionCatalog);
 */
export async function sessionCatalogOf(storage: Storage, openFolderCatalog: (sessionFolder: string) => Promise<SessionCatalog>): Promise<SessionCatalog> {
  const backend = storage.sessions as (Storage["sessions"] & { agentStoreDir?: string }) | undefined;
  if (backend?.kind === "sqlite" && typeof backend.agentStoreDir === "string") return openFolderCatalog(backend.agentStoreDir);
  throw new SteamharnessError("unavailable", `[steamharness] [viewer] no session catalog for the ${backend?.kind ?? "missing"} session backend: pass createViewerServer({ catalog })`);
}
