/**
 * steamharness/agent — the agent session APIs. Every export here is public API.
 */
export type { SessionStore, SessionAddress, SessionHead, SessionSnapshot, SessionAppendResult, SessionReadOptions, SessionStoreOpener, SessionOpenRequest } from "./ports/session-store.js";
export type { SessionEvent, SessionEventInput, SessionEventType, RunStartedPayload } from "./domain/agent/session-events.js";
export { messagesFromEvents } from "./domain/agent/session-events.js";
export type { SessionLease, SessionLeaseProvider, SessionLeaseTarget, SessionLeaseAcquireOptions } from "./ports/session-lease.js";
export type { SessionBackend, SessionForkRequest, SessionUnleasedRequest } from "./ports/session-backend.js";
// Time travel (issue 46): fork a session at any point, with the hazard report (FORK-1, FORK-2)
export { forkSession, forkLineage } from "./app/time-travel/fork-session.js";
export type { ForkSessionOptions, ForkSessionResult } from "./app/time-travel/fork-session.js";
export type { ForkPoint, ForkEffects, ForkHazard, ForkRecord } from "./domain/time-travel/fork.js";
export { recordedToolCalls } from "./domain/time-travel/tool-calls.js";
export type { RecordedToolCall, ToolReplayClass } from "./domain/time-travel/tool-calls.js";
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
// Governed approvals (issue 47): policy as data, bound single-use decisions, expiry ≠ denial, the audit chain
export { createGovernedToolPermissions, loadApprovalPolicy } from "./app/approvals/governed-tool-permissions.js";
export type { GovernedToolPermissions, GovernedToolPermissionsOptions, GovernedDecisionInput, GovernedCall, VersionedApprovalPolicy } from "./app/approvals/governed-tool-permissions.js";
export { answerApproval, governedAnswers } from "./app/approvals/answer-approval.js";
export { startApprovalSweeper, DEFAULT_APPROVAL_SWEEP_MS } from "./app/approvals/approval-sweeper.js";
export type { ApprovalSweeper, ApprovalSweeperOptions } from "./app/approvals/approval-sweeper.js";
export type { ApprovalGovernance, ApprovalAnswerInput } from "./app/approvals/answer-approval.js";
export { ApprovalPolicySchema, parseApprovalPolicy, evaluateApprovalPolicy, isPolicyApprover, DEFAULT_APPROVAL_EXPIRY_MS } from "./domain/approvals/policy.js";
export type { ApprovalPolicy, ApprovalAction, ApprovalExpiryAction, ApprovalPolicyCall, ApprovalVerdict, ApprovalPolicyApprover, ApproverSelectorSpec } from "./domain/approvals/policy.js";
export { verifyAuditChain, auditEntryHash, nextAuditEntry, AUDIT_GENESIS } from "./domain/approvals/audit-chain.js";
export type { ApprovalAuditEntry, ApprovalAuditKind, AuditDigest, AuditVerification } from "./domain/approvals/audit-chain.js";
export { createEscalationWebhook, webhookSignature } from "./adapters/driven/system/escalation-webhook.js";
export type { EscalationWebhookOptions } from "./adapters/driven/system/escalation-webhook.js";

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
  AgentSessionSteerCommand,
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
export { checkEvalSuite, evalRegressions, junitXml, EvalSuiteSchema, RUBRIC_PROMPT } from "./domain/time-travel/eval-suite.js";
export type { EvalSuite, EvalCase, EvalScorer, EvalCheck, EvalCaseScore, EvalScorecard } from "./domain/time-travel/eval-suite.js";
