/**
 * The run viewer as `steamharness/agent` exported it before `steamharness/viewer` (ARCH-4): kept
 * for one release, every name marked deprecated. The server loads on first call, so importing
 * `steamharness/agent` never loads the viewer's HTTP server.
 */
import type { ViewerServer as Server, ViewerServerOptions as ServerOptions } from "../adapters/driving/viewer/viewer-server.js";
import { createRunReplay as runReplay } from "../adapters/driving/viewer/run-replay.js";
import type { RunReplay as Replay, RunReplayOptions as ReplayOptions, ViewerPendingRequest as PendingRequest, ViewerRunStatus as RunStatus, ViewerRunView as RunView } from "../adapters/driving/viewer/run-replay.js";
import { createStoredDecisions as storedDecisions, STORED_DECISION_PREFIX as DECISION_PREFIX } from "../adapters/driving/viewer/stored-decisions.js";
import type { StoredDecision as Decision, StoredDecisions as Decisions, StoredDecisionsOptions as DecisionsOptions } from "../adapters/driving/viewer/stored-decisions.js";
import { createSqliteSessionCatalog as sqliteCatalog, type SqliteSessionCatalogOptions as CatalogOptions } from "../adapters/driven/sqlite/sessions/sqlite-session-catalog.js";
import type { SessionCatalog as Catalog, SessionCatalogEntry as CatalogEntry } from "../ports/session-catalog.js";

/**
 * Starts the run viewer (VIEW-1), loading its server on first call.
 *
 * @deprecated Import `createViewerServer` from `steamharness/viewer`; this one leaves
 * `steamharness/agent` in the next release.
 * @example
 * const viewer = await createViewerServer({ storage, catalog });
 */
export async function createViewerServer(options: ServerOptions): Promise<Server> {
  const { createViewerServer: create } = await import("./viewer.js");
  return create(options);
}

/** @deprecated Import `createRunReplay` from `steamharness/viewer`. */
export const createRunReplay = runReplay;
/** @deprecated Import `createStoredDecisions` from `steamharness/viewer`. */
export const createStoredDecisions = storedDecisions;
/** @deprecated Import `STORED_DECISION_PREFIX` from `steamharness/viewer`. */
export const STORED_DECISION_PREFIX = DECISION_PREFIX;
/** @deprecated Import `createSqliteSessionCatalog` from `steamharness/viewer`. */
export const createSqliteSessionCatalog = sqliteCatalog;
/** @deprecated Import from `steamharness/viewer`. */
export type ViewerServer = Server;
/** @deprecated Import from `steamharness/viewer`. */
export type ViewerServerOptions = ServerOptions;
/** @deprecated Import from `steamharness/viewer`. */
export type RunReplay = Replay;
/** @deprecated Import from `steamharness/viewer`. */
export type RunReplayOptions = ReplayOptions;
/** @deprecated Import from `steamharness/viewer`. */
export type ViewerRunView = RunView;
/** @deprecated Import from `steamharness/viewer`. */
export type ViewerRunStatus = RunStatus;
/** @deprecated Import from `steamharness/viewer`. */
export type ViewerPendingRequest = PendingRequest;
/** @deprecated Import from `steamharness/viewer`. */
export type StoredDecision = Decision;
/** @deprecated Import from `steamharness/viewer`. */
export type StoredDecisions = Decisions;
/** @deprecated Import from `steamharness/viewer`. */
export type StoredDecisionsOptions = DecisionsOptions;
/** @deprecated Import from `steamharness/viewer`. */
export type SqliteSessionCatalogOptions = CatalogOptions;
/** @deprecated Import from `steamharness/viewer`. */
export type SessionCatalog = Catalog;
/** @deprecated Import from `steamharness/viewer`. */
export type SessionCatalogEntry = CatalogEntry;
