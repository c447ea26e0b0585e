/**
 * steamharness — the public API. Every export here is public API and follows semver; nothing
 * else is. Additions are deliberate: test/package/public-api.json lists them.
 *
 * Subpaths: `steamharness/agent` (session host APIs), `steamharness/testing` (port contract
 * suites and the offline model).
 */

// Errors
export { SteamharnessError, UserInputRequiredError, isSteamharnessError } from "./domain/errors.js";
export type { SteamharnessErrorCode, SteamharnessErrorOptions } from "./domain/errors.js";
export type { JsonValue, JsonObject } from "./domain/json.js";
export { STORE_LIMITS } from "./domain/limits.js";

// Workflow core (WF-0)
export type { NodeContext, NodeLogger, NodeRunConfiguration, NodeTenantLimits, ToolCatalogEntry } from "./domain/node-context.js";
export { createNodeContext } from "./compose/node-context.js";
export { createHarnessRuntime } from "./compose/runtime.js";
export type { HarnessRuntime, RuntimeCapabilityServerOptions, RuntimeCodingToolsOptions, RuntimeModelEndpoint } from "./ports/runtime.js";
export type { Telemetry, TelemetryAttributes, TelemetryCarrier, TelemetryLeaseInfo, TelemetryModelCall, TelemetryRequestInfo, TelemetryRun, TelemetryRunInfo, TelemetrySpan } from "./ports/telemetry.js";
export type { NodeContextOptions } from "./app/node-context/node-context.js";
export { runStreamNode } from "./domain/stream-node.js";
export type { BaseStreamNode, RunStreamNodeOptions, StreamNodeResult } from "./domain/stream-node.js";
export { createOutputItemChunk, createOutputStreamAccumulator, outputChunk } from "./domain/output-stream.js";
export type { OutputItemInit, OutputStreamAccumulator } from "./domain/output-stream.js";
export type {
  AgentOutputKind,
  AgentPartType,
  OutputItem,
  OutputItemDisplay,
  OutputItemMetadata,
  OutputItemStreamChunk,
  RingContent,
} from "./domain/output-items.js";
export { createToolApprovalGate, toolApprovalRequestId } from "./domain/approval-gate.js";
export type { ToolApprovalCall, ToolApprovalGate } from "./domain/approval-gate.js";
export { workflow } from "./compose/workflow-namespace.js";

// Storage (ports and the two built-in adapters)
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
export { MemoryStorage } from "./adapters/driven/memory/memory-storage.js";
export type { MemoryStorageOptions } from "./adapters/driven/memory/memory-storage.js";
export { createSqliteStorage } from "./adapters/driven/sqlite/store/sqlite-storage.js";
export type { SqliteStorageOptions, SqliteStorage } from "./adapters/driven/sqlite/store/sqlite-storage.js";
export { createSystemClock } from "./adapters/driven/system/clock.js";
export { createRandomIdSource } from "./adapters/driven/system/id-source.js";

// Host-facing ports (hosts bring their own adapters) and the in-memory ones
export type { ToolPermissions, ToolPermissionRequest, ToolPermissionDecision } from "./ports/tool-permissions.js";
export type { UserInput, UserInputRequest, UserInputResponse, UserInputField } from "./ports/user-input.js";
export type { TokenUsageRecorder, TokenUsageEntry, TokenCounts } from "./ports/token-usage.js";
// Budgets (BUD-1, BUD-2)
export type { BudgetLedger, BudgetScope, BudgetPeriod, BudgetAmount, BudgetKey, BudgetLimit, BudgetState, BudgetExceeded, BudgetReservation, BudgetReserveOutcome, BudgetFinish, BudgetGrant } from "./ports/budget-ledger.js";
export { createMemoryBudgetLedger } from "./adapters/driven/memory/memory-budget-ledger.js";
export type { AgentBudgetOptions, AgentBudgetLimit } from "./domain/budget/budget-options.js";
export type { ModelPrice } from "./domain/budget/model-price.js";
// API keys and tenants (BUD-4)
export type { ApiKeyStore, ApiTenant, ApiTenantLimits, ApiKeyRecord, ApiKeyIdentity, ApiLimitOutcome, ApiRateUnit } from "./ports/api-keys.js";
export { createMemoryApiKeyStore } from "./adapters/driven/memory/memory-api-keys.js";
export { createSqliteApiKeyStore } from "./adapters/driven/sqlite/store/sqlite-api-keys.js";
export type { SqliteApiKeyStoreOptions } from "./adapters/driven/sqlite/store/sqlite-api-keys.js";
export { createMemoryToolPermissions } from "./adapters/driven/memory/memory-tool-permissions.js";
export type { MemoryToolPermissions, MemoryToolPermissionsOptions } from "./adapters/driven/memory/memory-tool-permissions.js";
export { createMemoryUserInput } from "./adapters/driven/memory/memory-user-input.js";
export type { MemoryUserInput, MemoryUserInputOptions } from "./adapters/driven/memory/memory-user-input.js";
export { createKvTokenUsage } from "./adapters/driven/kernel/kv-token-usage.js";

// Capability tools (CAP)
export {
  createProjectCapabilityTools,
  createProjectCapabilityServer,
  runProjectCapabilityAction,
  listProjectCapabilityToolIds,
  isProjectCapabilityAvailable,
} from "./app/capabilities/project-capabilities.js";
export type {
  ProjectCapabilityToolsOptions,
  ProjectCapabilityServerOptions,
  ProjectCapabilityListOptions,
} from "./app/capabilities/project-capabilities.js";
// MCP over Streamable HTTP (MCP-11, MCP-12)
export { createMcpHttpHandler } from "./compose/mcp-http.js";
export type { McpHttpHandler, McpHttpHandlerOptions } from "./adapters/driving/mcp/transport/http-handler.js";
export type { McpHttpAuthOptions, McpHttpOAuth, McpHttpTokenAuth } from "./adapters/driving/mcp/transport/http-auth.js";
export type { McpScopePolicy } from "./adapters/driving/mcp/transport/http-scopes.js";
export type { McpServerHandle } from "./ports/mcp-server.js";
export { CAPABILITY_TOOL_IDS } from "./domain/capabilities/catalog.js";
export type { CapabilityToolId } from "./domain/capabilities/catalog.js";
export type { CapabilityEnv, CapabilityEnvironmentOptions } from "./app/capabilities/project-capabilities.js";
export type { CapabilityApprove } from "./domain/capabilities/capability-spec.js";
export { textToolResult } from "./domain/agent-tool.js";
export type { AgentTool, AgentToolResult, AgentToolTextContent, AgentToolUpdateCallback } from "./domain/agent-tool.js";
export { acceptToolResultCard, validateResourceCard, RESOURCE_CARD_KINDS } from "./domain/capabilities/resource-card.js";
export type {
  ResourceCard,
  ResourceCardTarget,
  ResourceCardKind,
  ResourceCardOperation,
  ResourceCardSource,
  ResourceCardWarning,
} from "./domain/capabilities/resource-card.js";
export {
  isReservedKvKey,
  TOKEN_USAGE_TOTAL_KEY,
  TOKEN_USAGE_ENTRY_PREFIX,
  CONVERSATION_STATE_KEY,
  AGENT_KEY_PREFIX,
} from "./domain/capabilities/reserved-keys.js";
export type { KvScope } from "./domain/capabilities/reserved-keys.js";
export { CAPABILITY_LIMITS } from "./domain/capabilities/text-limits.js";
export { HOST_BRIDGE_URL_ENV, HOST_BRIDGE_TOKEN_ENV, HOST_BRIDGE_PATHS } from "./domain/capabilities/host-bridge.js";
export type { HostBridgeClient } from "./domain/capabilities/host-bridge.js";
export { detectCredential } from "./domain/capabilities/credential-detection.js";

// Models
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
export { createProviderModel } from "./adapters/driven/providers/provider-model.js";
export type { ProviderModelOptions } from "./adapters/driven/providers/provider-model.js";

// Workflow projects (WF-1)
export { defineWorkflow, buildStructureReport } from "./domain/workflow/workflow-definition.js";
export type {
  WorkflowDefinition,
  WorkflowExecutorDeclaration,
  WorkflowEntrypoint,
  WorkflowParam,
  WorkflowRunReturn,
  TypedWorkflowDefinition,
  TypedWorkflowEntrypoint,
  StructureReport,
  StructureEntrypoint,
} from "./domain/workflow/workflow-definition.js";
export type { InferWorkflowParams, InferUserInput, WorkflowParamDeclaration, WorkflowInputField } from "./domain/workflow/param-types.js";
export type {
  WorkflowPromptDeclaration,
  WorkflowPromptArgument,
  WorkflowPromptMessage,
  WorkflowPromptContent,
  WorkflowResourceDeclaration,
  WorkflowResourceTemplateDeclaration,
  WorkflowPublicationDeclarations,
  StructurePrompt,
  StructurePublications,
} from "./domain/workflow/publications.js";
export type {
  WorkflowRunContext,
  WorkflowRunResult,
  WorkflowRunAttachment,
  WorkflowUserInput,
  WorkflowInputRequest,
  RelatedProject,
  WorkflowFileParamValue,
} from "./domain/workflow/run-context.js";
export { SAMPLING_LIMITS } from "./domain/workflow/sampling.js";
export type { WorkflowSampling, WorkflowSamplingRequest, WorkflowSamplingResult, WorkflowSamplingMessage, WorkflowSamplingContent, WorkflowSamplingOptions } from "./domain/workflow/sampling.js";
export type { WorkflowRunReport, WorkflowRunStatus, PendingInteraction } from "./domain/workflow/run-report.js";
export { parseWorkflowManifest } from "./domain/workflow/project-manifest.js";
export type { WorkflowManifest } from "./domain/workflow/project-manifest.js";
export { entrypointInputSchema } from "./domain/workflow/param-schema.js";

// The agent (AG, SES, OUT)
export { createAgent } from "./app/agent/create-agent.js";
export { createAgentNode } from "./app/agent-node/create-agent-node.js";
export type { AgentNode, AgentNodeOptions } from "./app/agent-node/create-agent-node.js";
export type {
  Agent,
  AgentOptions,
  AgentInput,
  AgentCompactInput,
  AgentCompactResult,
  AgentOutputPayload,
  AgentEffort,
  AgentModelAttributes,
  AgentToolSet,
  AgentToolFactory,
  AgentMode,
  AgentPermissionPolicy,
} from "./app/agent/types.js";
// The session extension layer (EXT-1 … EXT-6): the `session: { … }` option
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
export type { CodeSandbox, CodeSandboxRequest, CodeSandboxResult, CodeSandboxLimits, CodeSandboxCallResult, CodeSandboxFailureKind } from "./ports/code-sandbox.js";
export { BUILTIN_CODING_TOOLS } from "./domain/agent/permission-policy.js";
export { AGENT_MODELS_KEY } from "./domain/agent/model-selection.js";
export type { AgentModelEntry, AgentModelPolicy, AgentConfigurationSnapshot } from "./domain/agent/model-selection.js";
export type { AgentContextUsage } from "./domain/agent/context-meter.js";
export { createCodingTools, createPathGuard } from "./adapters/driven/coding-tools/index.js";
export type { CodingToolsOptions, PathGuard } from "./adapters/driven/coding-tools/index.js";
export { agentPayloadFromChunks, DEFAULT_HISTORY_LIMIT } from "./app/agent-node/create-agent-node.js";
export { readExecutionHistory } from "./app/agent/execution-history.js";
export type { ExecutionHistoryOptions, ExecutionRecord, ExecutionStatus } from "./app/agent/execution-history.js";
export { conversationBody } from "./domain/agent/output-projector.js";
export { finalText } from "./domain/agent/final-text.js";

// Project configuration (CFG) and conversation projects (CONV)
export type {
  ProjectConfigurationStore,
  ProjectConfiguration,
  ProjectConfigurationOverview,
  ProjectConfigurationLookup,
  ProjectConfigurationCreate,
  ProjectConfigurationUpdate,
  ConfigurationField,
  ProjectConfigurationExport,
} from "./ports/project-configuration-store.js";
export { createMemoryProjectConfigurationStore } from "./adapters/driven/memory/memory-project-configuration-store.js";
export { createSqliteProjectConfigurationStore, projectConfigurationDatabasePath } from "./adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
export type { SqliteProjectConfigurationStoreOptions } from "./adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
export { takeProjectConfigurationSnapshot, createProjectConfigurationSnapshot, parseProjectConfigurationSnapshot } from "./domain/configuration/snapshot.js";
export { agentConfigurationFromSnapshot } from "./domain/configuration/agent-configuration.js";
export type { ApiKeyResolver } from "./domain/configuration/agent-configuration.js";
export type { ProjectConfigurationSnapshot } from "./domain/configuration/snapshot.js";
export { snapshotForRun, createAgentConfigurationLoader } from "./domain/configuration/run-snapshot.js";
export { startHostBridgeServer } from "./adapters/driving/host-bridge-server/host-bridge-server.js";
export type { HostBridgeServer, HostBridgeServerOptions } from "./adapters/driving/host-bridge-server/host-bridge-server.js";
// The configuration server (CFG-4): accounts, the HTTP API, its client and the store choice.
export type { ConfigurationAccount, ConfigurationAccountCreate, ConfigurationAccountStore } from "./ports/configuration-accounts.js";
export { createMemoryConfigurationAccounts } from "./adapters/driven/memory/memory-configuration-accounts.js";
export { createSqliteConfigurationAccounts } from "./adapters/driven/sqlite/configuration/sqlite-configuration-accounts.js";
export type { SqliteConfigurationAccountsOptions } from "./adapters/driven/sqlite/configuration/sqlite-configuration-accounts.js";
export { startConfigurationServer } from "./adapters/driving/config-server/config-server.js";
export type { ConfigurationServer, ConfigurationServerOptions } from "./adapters/driving/config-server/config-server.js";
export { createHttpProjectConfigurationStore } from "./adapters/driven/config-server-client/http-project-configuration-store.js";
export type { ConfigurationServerCredential, HttpProjectConfigurationStoreOptions } from "./adapters/driven/config-server-client/http-project-configuration-store.js";
export { openProjectConfigurationStore } from "./compose/configuration-store.js";
export type { ConfigurationStoreChoice, OpenConfigurationStoreOptions } from "./compose/configuration-store.js";
export type { SystemApiKeyResolver } from "./domain/configuration/agent-configuration.js";
export { defineAgentConversationExecutor, isAgentConversationExecutor } from "./app/conversation/define-executor.js";
export type { AgentConversationExecutor, AgentConversationExecutorOptions } from "./app/conversation/define-executor.js";
export { createAgentConversationProject, loadAgentConversationProject } from "./app/conversation/conversation-project.js";
export type { AgentConversationProject, AgentConversationProjectOptions, LoadedAgentConversationProject } from "./app/conversation/conversation-project.js";
