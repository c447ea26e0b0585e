/**
 * steamharness/ports — the interfaces a host may replace with its own adapter (ARCH-11): the store
 * ports behind `Storage`, the host-facing ports (tool permissions, user input, token usage,
 * budgets, API keys, the code sandbox, telemetry) and the model provider, with their data types.
 * Their contract suites are in `steamharness/testing`, their in-memory adapters in
 * `steamharness/memory`; the agent session ports are in `steamharness/agent`. Types only, apart
 * from the store limits. Every export here is public API.
 */
export { STORE_LIMITS } from "./domain/limits.js";
export type { Storage } from "./ports/storage.js";
export type { KvStore, KvNamespace, KvEntry, KvListOptions } from "./ports/kv-store.js";
export type {
  KnowledgeStore,
  KnowledgeDocument,
  KnowledgeDocumentInput,
  KnowledgeDocumentSummary,
  KnowledgeSearchHit,
  KnowledgeFilter,
  KnowledgeListOptions,
  KnowledgeSearchOptions,
} from "./ports/knowledge-store.js";
export type { ManagedFileStore, ManagedFile, ManagedFileImportOptions } from "./ports/managed-file-store.js";
export type { PersistentValueStore } from "./ports/persistent-value-store.js";
export type { Page, PageOptions } from "./ports/page.js";
export type { Clock } from "./ports/clock.js";
export type { IdSource } from "./ports/id-source.js";
export type { ToolPermissions, ToolPermissionRequest, ToolPermissionDecision } from "./ports/tool-permissions.js";
export type { ToolPermissionAnswer } from "./ports/tool-permissions.js";
export type { ApprovalStore, ApprovalRequestRecord, ApprovalDecisionRecord, ApprovalRequester, ApprovalScope, ApprovalBinding, ApprovalCover, ApprovalAuditInput } from "./ports/approval-store.js";
export type { UserInput, UserInputRequest, UserInputResponse, UserInputField } from "./ports/user-input.js";
export type { DecisionAnswerer } from "./domain/agent/decision-answerer.js";
export type { TokenUsageRecorder, TokenUsageEntry, TokenCounts } from "./ports/token-usage.js";
export type { BudgetLedger, BudgetScope, BudgetPeriod, BudgetAmount, BudgetKey, BudgetLimit, BudgetState, BudgetExceeded, BudgetReservation, BudgetReserveOutcome, BudgetFinish, BudgetGrant } from "./ports/budget-ledger.js";
export type { ApiKeyStore, ApiTenant, ApiTenantLimits, ApiKeyRecord, ApiKeyIdentity, ApiLimitOutcome, ApiRateUnit } from "./ports/api-keys.js";
export type { CodeSandbox, CodeSandboxRequest, CodeSandboxResult, CodeSandboxLimits, CodeSandboxCallResult, CodeSandboxFailureKind } from "./ports/code-sandbox.js";
export type { Telemetry, TelemetryAttributes, TelemetryCarrier, TelemetryLeaseInfo, TelemetryModelCall, TelemetryRequestInfo, TelemetryRun, TelemetryRunInfo, TelemetrySpan } from "./ports/telemetry.js";
export type {
  ModelProvider,
  ModelDescriptor,
  ModelRequest,
  ModelMessage,
  ModelResponse,
  ModelProviderItem,
  ModelStreamEvent,
  ModelToolSpec,
} from "./ports/model-provider.js";
