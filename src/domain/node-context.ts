import type { Storage } from "../ports/storage.js";
import type { ToolPermissions } from "../ports/tool-permissions.js";
import type { UserInput } from "../ports/user-input.js";
import type { TokenUsageRecorder } from "../ports/token-usage.js";
import type { Clock } from "../ports/clock.js";
import type { IdSource } from "../ports/id-source.js";
import type { HarnessRuntime } from "../ports/runtime.js";
import type { TelemetryCarrier } from "../ports/telemetry.js";
import type { BudgetLedger, BudgetPeriod } from "../ports/budget-ledger.js";
import type { ApiKeyResolver, SystemApiKeyResolver } from "./configuration/agent-configuration.js";
import type { ProjectConfigurationSnapshot } from "./configuration/snapshot.js";

/**
 * One entry of the host's tool catalog (`NodeContext.toolCatalog`). A tool absent from the catalog is
 * not registered; `enabled: false` hides and denies it; `autoApprove: true` approves it without
 * asking a person.
 */
export interface ToolCatalogEntry {
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

/**
 * The host's own limits on the tenant a run is for (BUD-4: the tenant of the API key that
 * admitted the call), kept in the host's tenant store rather than the project's: every model
 * call of the run's agents reserves `budget` in `ledger` besides the agent's own budgets (at it
 * the run always stops with `budget_exceeded`: a project cannot approve past its host's cap), and
 * the settled tokens of each call are told to `onTokens` (the tenant's token-rate window).
 */
export interface NodeTenantLimits {
  /** The tenant; its budget is the ledger's `tenant` budget of this id. */
  tenantId: string;
  /** The tenant's budget (absent units unlimited); none: only `onTokens` applies. */
  budget?: { tokens?: number; costUsd?: number; period?: BudgetPeriod };
  /** The ledger the budget is reserved in (the one the host's admission reads). */
  ledger: BudgetLedger;
  /** Told the tokens of every settled model call and when; must not reject. */
  onTokens?: (tokens: number, at: number) => Promise<void>;
}

/** Everything a workflow node runs with (WF-0). Build one with `createNodeContext`. */
export interface NodeContext {
  runId: string;
  projectId: string;
  conversationId?: string;
  storage: Storage;
  /** The host's tool catalog (CAP-3): which tools are declared, exposed and auto-approved. */
  toolCatalog: ToolCatalogEntry[];
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
  /**
   * GOV-1: the principal the run is for (tenant key and subject: a gateway key, an MCP client's
   * OAuth subject). The approval gate sends it as its requests' `requestedBy`, so a governed
   * adapter records the requester and refuses their own approval (GOV-4). Absent: a local run.
   */
  requester?: { tenant: string; subject: string };
  /** BUD-4: the host's limits on the run's tenant, reserved and charged outside the project's ledger. */
  tenantLimits?: NodeTenantLimits;
}
