/**
 * steamharness — the public API. Every export here is public API and follows semver; nothing
 * else is. Changes are deliberate: api/index.api.md reports every name with its declaration, and
 * the root holds at most 150 names (ARCH-11; test/package/api-report.test.ts).
 *
 * The root is what most users import: agents, workflows, the node context, errors and the core
 * types. The rest lives on subpaths: `steamharness/agent` (session host APIs), `/memory`,
 * `/sqlite` and `/postgres` (the storage families), `/ports` (interfaces a host may replace),
 * `/configuration` (project configuration and its server), `/capabilities` (the project
 * capability tools), `/mcp` (MCP over Streamable HTTP), `/gateway`, `/viewer`, `/opentelemetry`
 * and `/testing` (contract suites and the offline model).
 */

// Errors
export { SteamharnessError, UserInputRequiredError, isSteamharnessError } from "./domain/errors.js";
export type { SteamharnessErrorCode, SteamharnessErrorOptions } from "./domain/errors.js";
export type { JsonValue, JsonObject } from "./domain/json.js";
// Workflow core (WF-0)
export type { NodeContext, NodeLogger, NodeRunConfiguration, NodeTenantLimits, ToolCatalogEntry } from "./domain/node-context.js";
export { createNodeContext } from "./compose/node-context.js";
export { createHarnessRuntime } from "./compose/runtime.js";
export type { HarnessRuntime, RuntimeCapabilityServerOptions, RuntimeCodingToolsOptions, RuntimeModelEndpoint } from "./ports/runtime.js";
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

// Storage: the bundle of store ports a node context takes (its interfaces are on
// `steamharness/ports`, its adapters on `/memory`, `/sqlite`, `/postgres`), and the system defaults.
export type { Storage } from "./ports/storage.js";
export { createSystemClock } from "./adapters/driven/system/clock.js";
export { createRandomIdSource } from "./adapters/driven/system/id-source.js";
export { createKvTokenUsage } from "./adapters/driven/kernel/kv-token-usage.js";

// Budgets (BUD-1, BUD-2): the agent's options; the ledger port is on `steamharness/ports`
export type { AgentBudgetOptions, AgentBudgetLimit } from "./domain/budget/budget-options.js";
export type { ModelPrice } from "./domain/budget/model-price.js";

// Tools
export { textToolResult } from "./domain/agent-tool.js";
export type { AgentTool, AgentToolResult, AgentToolTextContent, AgentToolUpdateCallback } from "./domain/agent-tool.js";
// Models (the provider port's data types are on `steamharness/ports`)
export type { ModelProvider } from "./ports/model-provider.js";
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
export type { WorkflowInputSchema } from "./domain/workflow/input-schema.js";
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
export { BUILTIN_CODING_TOOLS } from "./domain/agent/permission-policy.js";
export { AGENT_MODELS_KEY } from "./domain/agent/model-selection.js";
export type { AgentModelEntry, AgentModelPolicy, AgentConfigurationSnapshot } from "./domain/agent/model-selection.js";
export type { AgentContextUsage } from "./domain/agent/context-meter.js";
export { createCodingTools, createPathGuard } from "./adapters/driven/coding-tools/index.js";
export type { CodingToolsOptions, PathGuard } from "./adapters/driven/coding-tools/index.js";
export { agentPayloadFromChunks, DEFAULT_HISTORY_LIMIT } from "./app/agent-node/create-agent-node.js";
export { conversationBody } from "./domain/agent/output-projector.js";
export { finalText } from "./domain/agent/final-text.js";

// Conversation projects (CONV)
export { defineAgentConversationExecutor, isAgentConversationExecutor } from "./app/conversation/define-executor.js";
export type { AgentConversationExecutor, AgentConversationExecutorOptions } from "./app/conversation/define-executor.js";
export { createAgentConversationProject } from "./app/conversation/conversation-project.js";
export { loadAgentConversationProject } from "./compose/conversation-project.js";
export type { AgentConversationProject, AgentConversationProjectOptions, LoadedAgentConversationProject } from "./app/conversation/conversation-project.js";
