import type { Storage } from "../ports/storage.js";
import type { ToolPermissions } from "../ports/tool-permissions.js";
import type { UserInput } from "../ports/user-input.js";
import type { TokenUsageRecorder } from "../ports/token-usage.js";
import type { Clock } from "../ports/clock.js";
import type { IdSource } from "../ports/id-source.js";
import type { HarnessRuntime } from "../ports/runtime.js";
import type { TelemetryCarrier } from "../ports/telemetry.js";
import type { ApiKeyResolver, SystemApiKeyResolver } from "./configuration/agent-configuration.js";
import type { ProjectConfigurationSnapshot } from "./configuration/snapshot.js";

/**
 * One entry of the host's tool catalog (`NodeContext.toolCatalog`). A tool absent from the catalog is
 * not registered; `enabled: false` hides and denies it; `autoApprove: true` approves it without
 * asking a person.
 */
export interface ToolPermissionDefinition {
  id: string;
  enabled?: boolean;
  autoApprove?: boolean;
}

/** Structured log sink of a node. Never writes to stdout on its own. */
export interface NodeLogger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/**
 * The project configuration a run started with (CFG-2, WF-2): what an agent node with no
 * endpoint and no injected models of its own picks its model from (`STEAMHARNESS_AGENT_MODELS`,
 * AG-4), and the policy it is held to.
 */
export interface NodeRunConfiguration {
  /** The run's snapshot, taken once per run id and kept with the run. */
  snapshot: ProjectConfigurationSnapshot;
  /** Resolves an entry's `apiKeyRef` when a turn starts; keys are never in the snapshot. */
  resolveApiKey?: ApiKeyResolver;
  /** The current account's key for system entries (CFG-4), when the host runs against a configuration server. */
  resolveSystemApiKey?: SystemApiKeyResolver;
}

/** Everything a workflow node runs with (WF-0). Build one with `createNodeContext`. */
export interface NodeContext {
  runId: string;
  projectId: string;
  conversationId?: string;
  storage: Storage;
  /** The host's tool catalog (CAP-3): which tools are declared, exposed and auto-approved. */
  toolCatalog: ToolPermissionDefinition[];
  /** @deprecated The same catalog as `toolCatalog` (what `createNodeContext` sets); read `toolCatalog`. Removed in the next release. */
  executor?: { tools: ToolPermissionDefinition[] };
  /** The run's project configuration, when its host took a snapshot (workflow runs do, WF-2). */
  configuration?: NodeRunConfiguration;
  toolPermissions: ToolPermissions;
  userInput: UserInput;
  tokenUsage: TokenUsageRecorder;
  signal: AbortSignal;
  log: NodeLogger;
  clock: Clock;
  ids: IdSource;
  /** The driven adapters the composition root handed down (models, sandbox, coding tools, session defaults; ARCH-1). */
  runtime: HarnessRuntime;
  /** The trace context new runs of this context continue (an MCP call, a gateway request; OBS-3). */
  trace?: TelemetryCarrier;
  /**
   * Who the run is for (BUD-5): the verified caller's tenant of the host that started it (an MCP
   * HTTP client's OAuth subject). An agent budget's `tenant` limits use it when the budget names
   * no `tenantId`.
   */
  tenantId?: string;
}

/**
 * The host's tool catalog of a context: `toolCatalog`, or for a context written before it had
 * one, the deprecated `executor.tools` (ARCH-4); empty when neither is there.
 *
 * @example
 * toolCatalogOf(context).find((tool) => tool.id === "workflow-kv_kv_store")
 */
export function toolCatalogOf(context: { toolCatalog?: ToolPermissionDefinition[]; executor?: { tools: ToolPermissionDefinition[] } }): ToolPermissionDefinition[] {
  return context.toolCatalog ?? context.executor?.tools ?? [];
}
