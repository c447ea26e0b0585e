/**
 * steamharness/viewer — the run viewer (VIEW-1 … VIEW-4; docs/viewer.md): `steamharness view` as a
 * library, the session catalog port it lists sessions through, the stored decisions its page
 * answers pauses with, and the run replay its page draws from. A subpath of its own so importing
 * `steamharness/agent` never loads the viewer's HTTP server (ARCH-4). Every export here is public API.
 */
export { createViewerServer } from "./compose/viewer.js";
export type { ViewerServer, ViewerServerOptions } from "./adapters/driving/viewer/viewer-server.js";
export { createSqliteSessionCatalog } from "./adapters/driven/sqlite/sessions/sqlite-session-catalog.js";
export type { SqliteSessionCatalogOptions } from "./adapters/driven/sqlite/sessions/sqlite-session-catalog.js";
export type { SessionCatalog, SessionCatalogEntry } from "./ports/session-catalog.js";
export { createStoredDecisions, STORED_DECISION_PREFIX } from "./adapters/driving/viewer/stored-decisions.js";
export type { StoredDecision, StoredDecisions, StoredDecisionsOptions } from "./adapters/driving/viewer/stored-decisions.js";
export { createRunReplay } from "./adapters/driving/viewer/run-replay.js";
export type { RunReplay, RunReplayOptions, ViewerRunView, ViewerRunStatus, ViewerPendingRequest } from "./adapters/driving/viewer/run-replay.js";
