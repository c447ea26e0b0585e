/**
 * steamharness/agent — the agent session APIs. Every export here is public API.
 */
export type { SessionStore, SessionAddress, SessionHead, SessionSnapshot, SessionAppendResult, SessionReadOptions, SessionStoreOpener, SessionOpenRequest } from "./ports/session-store.js";
export type { SessionEvent, SessionEventInput, SessionEventType, RunStartedPayload } from "./domain/agent/session-events.js";
export { messagesFromEvents } from "./domain/agent/session-events.js";
export type { SessionLease, SessionLeaseProvider, SessionLeaseTarget, SessionLeaseAcquireOptions } from "./ports/session-lease.js";
export type { SessionBackend, SessionUnleasedRequest } from "./ports/session-backend.js";
export type { AgentSessionHostStore, AgentSessionInboxEntry, AgentSessionInboxOutcome } from "./ports/session-host-store.js";
export { acceptTaskUpdate, ACTIVE_TASK_STATUSES } from "./domain/session-host/host-state.js";
export { chooseSessionStorage } from "./domain/agent/session-choice.js";
// The memory and SQLite session adapters are on `steamharness/memory` and `steamharness/sqlite` (ARCH-11).

// The session extension layer (EXT-1 … EXT-6): the types of createAgent's `session: { … }` option
export type {
  AgentSessionOptions,
  AgentToolGroup,
  AgentToolSearchOptions,
  AgentCodeModeOptions,
  AgentSessionRegistry,
  AgentSessionHooks,
  AgentHookToolCall,
  AgentToolCallDecision,
  AgentSessionTask,
  AgentSessionTaskContext,
  AgentSessionEnvironment,
} from "./app/agent/extensions/types.js";
// The record of past agent executions (SES)
export { readExecutionHistory } from "./app/agent/execution-history.js";
export type { ExecutionHistoryOptions, ExecutionRecord, ExecutionStatus } from "./app/agent/execution-history.js";

// The resident session host (HOST-1 … HOST-6)
export { createAgentSessionHost, controlAgentSession, cancelAgentConversation } from "./compose/session-host.js";
export type { AgentSessionHostOptions, ControlAgentSessionOptions, CancelAgentConversationOptions } from "./compose/session-host.js";
export { SUBAGENT_TOOL } from "./app/session-host/index.js";
export { AgentSessionCommandSchema, AGENT_SESSION_COMMAND_TYPES, parseAgentSessionCommand } from "./app/session-host/index.js";
export type {
  AgentSessionHost,
  AgentSessionCommandResult,
  AgentSessionBackgroundWork,
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
} from "./app/session-host/index.js";

// Deprecated (ARCH-4): the run viewer moved to `steamharness/viewer`; these names stay here for
// one release. `createViewerServer` loads the viewer's server on first call, so importing this
// entry never loads it.
export { createViewerServer, createSqliteSessionCatalog, createStoredDecisions, STORED_DECISION_PREFIX, createRunReplay } from "./compose/deprecated-viewer.js";
export type {
  ViewerServer,
  ViewerServerOptions,
  SqliteSessionCatalogOptions,
  SessionCatalog,
  SessionCatalogEntry,
  StoredDecision,
  StoredDecisions,
  StoredDecisionsOptions,
  RunReplay,
  RunReplayOptions,
  ViewerRunView,
  ViewerRunStatus,
  ViewerPendingRequest,
} from "./compose/deprecated-viewer.js";

// Time travel (issue 46): replay a recorded run with its tools answered from the recording, and
// its diff against the original (REPLAY-1, REPLAY-2); portable export and import of runs (EVAL-2);
// eval suites replayed into a scorecard (EVAL-1). See docs/time-travel.md.
export { replayRun } from "./app/time-travel/replay.js";
export type { ReplayRunOptions, ReplayResult, ReplayDivergencePolicy, ReplayDivergenceDecision } from "./app/time-travel/replay.js";
export type { ReplayDivergence, ReplayToolMode } from "./domain/time-travel/replay.js";
export { diffRuns, runFacts } from "./domain/time-travel/replay-diff.js";
export type { RunDiff, RunFacts, DiffField } from "./domain/time-travel/replay-diff.js";
export { exportRun, importRun } from "./app/time-travel/run-export.js";
export type { ImportedRun } from "./app/time-travel/run-export.js";
export { runEvalSuite } from "./app/time-travel/eval.js";
export type { EvalRunOptions, OpenedEvalCase } from "./app/time-travel/eval.js";
export { checkEvalSuite, evalRegressions, junitXml, EvalSuiteSchema } from "./domain/time-travel/eval-suite.js";
export type { EvalSuite, EvalCase, EvalScorer, EvalCheck, EvalCaseScore, EvalScorecard } from "./domain/time-travel/eval-suite.js";
