/**
 * steamharness/agent — the agent session APIs. Every export here is public API.
 */
export type { SessionStore, SessionAddress, SessionHead, SessionSnapshot, SessionAppendResult, SessionReadOptions, SessionStoreOpener, SessionOpenRequest } from "./ports/session-store.js";
export type { SessionEvent, SessionEventInput, SessionEventType, RunStartedPayload } from "./domain/agent/session-events.js";
export { messagesFromEvents } from "./domain/agent/session-events.js";
export type { SessionLease, SessionLeaseProvider, SessionLeaseTarget, SessionLeaseAcquireOptions } from "./ports/session-lease.js";
export type { SessionBackend, SessionUnleasedRequest } from "./ports/session-backend.js";
export type { AgentSessionHostStore, AgentSessionInboxEntry, AgentSessionInboxOutcome } from "./ports/session-host-store.js";
export { createMemorySessionBackend } from "./adapters/memory/memory-session-backend.js";
export { createMemorySessionHostStore, createMemorySessionHostRecord } from "./adapters/memory/memory-session-host-store.js";
export type { MemorySessionHostRecord } from "./adapters/memory/memory-session-host-store.js";
export { createSqliteSessionBackend } from "./adapters/sqlite/sessions/sqlite-session-backend.js";
export type { SqliteSessionBackend, SqliteSessionBackendOptions } from "./adapters/sqlite/sessions/sqlite-session-backend.js";
export { acceptTaskUpdate, ACTIVE_TASK_STATUSES } from "./domain/session-host/host-state.js";
export { createMemorySessionStore } from "./adapters/memory/memory-session-store.js";
export { createSqliteSessionStore } from "./adapters/sqlite/sessions/sqlite-session-store.js";
export type { SqliteSessionStoreOptions } from "./adapters/sqlite/sessions/sqlite-session-store.js";
export { createSqliteSessionPool } from "./adapters/sqlite/sessions/sqlite-session-pool.js";
export type { SqliteSessionPool, SqliteSessionPoolOptions } from "./adapters/sqlite/sessions/sqlite-session-pool.js";
export type { SqliteSessionLeaseProviderOptions } from "./adapters/sqlite/sessions/sqlite-session-lease.js";
export { createMemorySessionLeaseProvider } from "./adapters/memory/memory-session-lease.js";
export { createSqliteSessionLeaseProvider } from "./adapters/sqlite/sessions/sqlite-session-lease.js";
export { resolveSessionDatabasePath, sessionLockPath, conversationSessionsDirectory } from "./adapters/sqlite/sessions/session-database-path.js";
export type { ResolveSessionDatabasePathOptions } from "./adapters/sqlite/sessions/session-database-path.js";
export { chooseSessionStorage } from "./domain/agent/session-choice.js";
export { DEFAULT_AGENT_STORE_DIR } from "./adapters/sqlite/sessions/session-file-names.js";

// The resident session host (HOST-1 … HOST-6)
export { createAgentSessionHost, controlAgentSession, cancelAgentConversation } from "./compose/session-host.js";
export { SUBAGENT_TOOL } from "./session-host/index.js";
export { AgentSessionCommandSchema, AGENT_SESSION_COMMAND_TYPES, parseAgentSessionCommand } from "./session-host/index.js";
export type {
  AgentSessionHost,
  AgentSessionHostOptions,
  AgentSessionCommandResult,
  AgentSessionBackgroundWork,
  ControlAgentSessionOptions,
  CancelAgentConversationOptions,
  AgentSessionStoredCommand,
  AgentSessionCommand,
  AgentSessionCommandType,
  AgentSessionSubmitCommand,
  AgentSessionCancelCommand,
  AgentSessionCompactCommand,
  AgentSessionResetCommand,
  AgentSessionForkCommand,
  AgentSessionContinueCommand,
  AgentSessionSelectCommand,
  AgentSessionHostStatus,
  AgentSessionTaskStatus,
  AgentSessionTaskRecord,
  AgentSessionContextKind,
  AgentSessionContextRecord,
} from "./session-host/index.js";

// The run viewer (VIEW-1 … VIEW-4): `steamharness view` as a library, the session catalog port
// it lists sessions through, and the stored decisions its page answers pauses with.
export { createViewerServer } from "./adapters/viewer/viewer-server.js";
export type { ViewerServer, ViewerServerOptions } from "./adapters/viewer/viewer-server.js";
export { createSqliteSessionCatalog } from "./adapters/sqlite/sessions/sqlite-session-catalog.js";
export type { SqliteSessionCatalogOptions } from "./adapters/sqlite/sessions/sqlite-session-catalog.js";
export type { SessionCatalog, SessionCatalogEntry } from "./ports/session-catalog.js";
export { createStoredDecisions, STORED_DECISION_PREFIX } from "./adapters/viewer/stored-decisions.js";
export type { StoredDecision, StoredDecisions, StoredDecisionsOptions } from "./adapters/viewer/stored-decisions.js";
export { createRunReplay } from "./adapters/viewer/run-replay.js";
export type { RunReplay, RunReplayOptions, ViewerRunView, ViewerRunStatus, ViewerPendingRequest } from "./adapters/viewer/run-replay.js";
