import { SteamharnessError } from "../../../domain/errors.js";
import type { SessionCatalog } from "../../../ports/session-catalog.js";
import type { Storage } from "../../../ports/storage.js";
import { createSqliteSessionCatalog } from "../../../compose/sqlite.js";

/**
 * The session catalog of a storage's session backend: the SQLite backend's session folders.
 * Another backend (PostgreSQL, a host's own) brings its catalog (its index rows) to the viewer
 * through `createViewerServer({ catalog })`; without one this throws `unavailable`.
 *
 * @example
 * const catalog = sessionCatalogOf(createSqliteStorage({ directory: ".steamharness" }));
 */
export function sessionCatalogOf(storage: Storage): SessionCatalog {
  const backend = storage.sessions as (Storage["sessions"] & { agentStoreDir?: string }) | undefined;
  if (backend?.kind === "sqlite" && typeof backend.agentStoreDir === "string") return createSqliteSessionCatalog({ agentStoreDir: backend.agentStoreDir });
  throw new SteamharnessError("unavailable", `[steamharness] [viewer] no session catalog for the ${backend?.kind ?? "missing"} session backend: pass createViewerServer({ catalog })`);
}
