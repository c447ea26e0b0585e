import type { Storage } from "../ports/storage.js";
import type { ToolPermissions } from "../ports/tool-permissions.js";
import type { UserInput } from "../ports/user-input.js";
import type { TokenUsageRecorder } from "../ports/token-usage.js";
import type { Clock } from "../ports/clock.js";
import type { IdSource } from "../ports/id-source.js";
import type { HarnessRuntime } from "../ports/runtime.js";
import type { TelemetryCarrier } from "../ports/telemetry.js";
import type { ApiKeyResolver } from "./configuration/agent-configuration.js";
import type { ProjectConfigurationSnapshot } from "./configuration/snapshot.js";

/**
 * One entry of the host's tool catalog (`executor.tools`). A tool absent from the catalog is
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
}

/** Everything a workflow node runs with (WF-0). Build one with `createNodeContext`. */
export interface NodeContext {
  runId: string;
  projectId: string;
  conversationId?: string;
  storage: Storage;
  executor: { tools: ToolPermissionDefinition[] };
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
}
