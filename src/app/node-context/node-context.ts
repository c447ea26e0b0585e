import type { NodeContext, NodeLogger, NodeRunConfiguration, ToolCatalogEntry } from "../../domain/node-context.js";
import type { Storage } from "../../ports/storage.js";
import type { ToolPermissions } from "../../ports/tool-permissions.js";
import type { UserInput } from "../../ports/user-input.js";
import type { TokenUsageRecorder } from "../../ports/token-usage.js";
import type { Clock } from "../../ports/clock.js";
import type { IdSource } from "../../ports/id-source.js";
import type { HarnessRuntime } from "../../ports/runtime.js";
import type { TelemetryCarrier } from "../../ports/telemetry.js";
import { SteamharnessError } from "../../domain/errors.js";

/** Options of {@link createNodeContext}: `projectId` and `storage` are required, the rest default. */
export interface NodeContextOptions {
  projectId: string;
  storage: Storage;
  /** Defaults to a fresh id `run-…`. */
  runId?: string;
  conversationId?: string;
  /** The host's tool catalog; defaults to empty (every gated tool is "not registered"). */
  toolCatalog?: ToolCatalogEntry[];
  /** The run's project configuration snapshot (CFG-2); none by default. */
  configuration?: NodeRunConfiguration;
  /** Defaults to an in-memory adapter that answers `pending` (a person must decide; never auto-approves). */
  toolPermissions?: ToolPermissions;
  /** Defaults to an in-memory adapter that answers `pending`. */
  userInput?: UserInput;
  /** Defaults to usage under the reserved KV keys of the project (or conversation) scope. */
  tokenUsage?: TokenUsageRecorder;
  /** Defaults to a signal that never aborts. */
  signal?: AbortSignal;
  /** Defaults to a logger that drops everything (nodes never write to stdout on their own). */
  log?: NodeLogger;
  clock?: Clock;
  ids?: IdSource;
  /** The driven adapters this context hands down; defaults to the library's runtime (`createHarnessRuntime`). */
  runtime?: HarnessRuntime;
  /** The trace context the context's new runs continue (OBS-3): a W3C `traceparent` (and `tracestate`). */
  trace?: TelemetryCarrier;
  /** Who the run is for (BUD-5): the id of `tenant` budgets that name none; none by default. */
  tenantId?: string;
  /** GOV-1: the principal the run is for (tenant key and subject), sent as its approval requests' requester; none by default. */
  requester?: { tenant: string; subject: string };
}

const silentLogger: NodeLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Builds a {@link NodeContext} whose defaults come from `runtime` (WF-0, ARCH-1). The library's
 * `createNodeContext` is this function with the entry's runtime (src/compose/node-context.ts).
 *
 * @example
 * const context = buildNodeContext({ projectId: "demo", storage }, createHarnessRuntime());
 */
export function buildNodeContext(options: NodeContextOptions, runtime: HarnessRuntime): NodeContext {
  if (!options.projectId) throw new SteamharnessError("input_validation", "createNodeContext: projectId is required", { field: "projectId" });
  if (!options.storage) throw new SteamharnessError("input_validation", "createNodeContext: storage is required", { field: "storage" });
  const ids = options.ids ?? runtime.ids();
  const toolCatalog = options.toolCatalog ?? [];
  const namespace = options.conversationId === undefined ? { projectId: options.projectId } : { projectId: options.projectId, conversationId: options.conversationId };
  return {
    runId: options.runId ?? ids.next("run-"),
    projectId: options.projectId,
    ...(options.conversationId === undefined ? {} : { conversationId: options.conversationId }),
    storage: options.storage,
    toolCatalog,
    ...(options.configuration === undefined ? {} : { configuration: options.configuration }),
    toolPermissions: options.toolPermissions ?? runtime.toolPermissions(),
    userInput: options.userInput ?? runtime.userInput(),
    tokenUsage: options.tokenUsage ?? options.storage.tokenUsage?.(namespace) ?? runtime.tokenUsage(options.storage.kv, namespace),
    signal: options.signal ?? new AbortController().signal,
    log: options.log ?? silentLogger,
    clock: options.clock ?? runtime.clock(),
    ids,
    runtime,
    ...(options.trace === undefined ? {} : { trace: options.trace }),
    ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
    ...(options.requester === undefined ? {} : { requester: options.requester }),
  };
}
