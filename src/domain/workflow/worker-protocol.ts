import type { ProjectConfigurationSnapshot } from "../configuration/snapshot.js";
import type { JsonValue } from "../json.js";
import type { StructureReport } from "./workflow-definition.js";
import type { WorkflowRunReport } from "./run-report.js";
import type { WorkflowRoot, WorkflowSamplingRequest, WorkflowSamplingResult } from "./sampling.js";
import type { ToolPermissionDecision, ToolPermissionRequest } from "../../ports/tool-permissions.js";
import type { UserInputRequest, UserInputResponse } from "../../ports/user-input.js";
import type { TelemetryCarrier } from "../../ports/telemetry.js";
import type { FileParamSource } from "../../ports/project-files.js";
import type { ApiTenantLimits } from "../../ports/api-keys.js";

/**
 * The IPC protocol between a host (the CLI or the MCP server) and a workflow worker process.
 * The worker's stdout and stderr are diagnostics only; every structured message travels over
 * the IPC channel, so nothing a project prints can be mistaken for a protocol message.
 */

/** Where a key store lives (the gateway's `--keys`): its SQLite folder, or a PostgreSQL URL and schema. */
export interface WorkerKeyStoreLocation {
  directory: string;
  postgres?: string;
  schema?: string;
}

/**
 * How a worker is configured, sent once right after it starts: the workflow-run use case's
 * `WorkerConfig` (app/workflow-runs/worker-config.ts). The process that carries it reads only the
 * project folder (the worker's working directory).
 */
export interface WorkerInit {
  projectDir: string;
}

/**
 * BUD-4: what the key store sets on a run's tenant: its budget and token rate, and the tenant's
 * id in the key store (TEN-1: the run's `tenant` is the namespaced `key:<id>`, the store keys by `<id>`).
 */
export type WorkerTenantLimits = Pick<ApiTenantLimits, "budgetTokens" | "budgetUsd" | "budgetPeriod" | "tokensPerMinute"> & { keyTenantId: string };

/** A run to execute. File params hold checked absolute paths, imported by the worker. */
export interface WorkerRunRequest {
  runId: string;
  entrypointId: string;
  params: Record<string, JsonValue>;
  /** Param name → checked file(s) to import into the managed-file store: real path and recorded name. */
  files: Record<string, FileParamSource | FileParamSource[]>;
  /** The caller's trace context (the MCP call's span, OBS-3): the run's agents continue it. */
  trace?: TelemetryCarrier;
  /** BUD-5: who the run is for (the MCP HTTP caller's tenant): the run's agents charge its `tenant` budgets. */
  tenant?: string;
  /**
   * BUD-4: the limits of `tenant` in the host's key store ({@link WorkerConfig.tenantStore}): the
   * run's model calls reserve its budget there and charge its token window.
   */
  tenantLimits?: WorkerTenantLimits;
  /**
   * TEN-3: the tenant whose data the run reads and writes: the worker opens that tenant's stores
   * (`tenantDataDirs`) for it. Absent: the host's own data dirs (stdio, one token, no auth).
   */
  dataTenant?: string;
  /** Send the run's `context.log` entries to the host (`log` messages); set when its handlers take them. */
  forwardLogs?: boolean;
  /** The host made `runId` for this run (no earlier run has it): nothing saved under it is looked up. */
  newRun?: boolean;
  /**
   * CFG-2: the new run's configuration snapshot, taken by the host as it dispatched the run and
   * saved by the host before it answers (host-run-snapshots.ts): the worker then neither reads
   * the configuration store nor writes the snapshot. Absent: the worker takes it, as before.
   */
  snapshot?: ProjectConfigurationSnapshot;
}

/** Parent process → worker messages. */
export type ParentMessage =
  | { type: "init"; config: WorkerInit }
  | { type: "run"; run: WorkerRunRequest }
  | { type: "input-response"; requestId: string; response: UserInputResponse }
  | { type: "approval-response"; requestId: string; decision: ToolPermissionDecision }
  /** The answer to a `sampling-request`: the client's checked result, or the typed error the run's call rejects with. */
  | { type: "sampling-response"; requestId: string; result: WorkflowSamplingResult }
  | { type: "sampling-response"; requestId: string; error: WorkerSamplingError }
  /** The answer to a `roots-request` (MCP-19): the client's checked roots, or the typed error. */
  | { type: "roots-response"; requestId: string; roots: WorkflowRoot[] }
  | { type: "roots-response"; requestId: string; error: WorkerSamplingError }
  /** No further run: close the stores and exit. */
  | { type: "exit" };

/** One entry of a run's `context.log`, forwarded to the host (an MCP client may receive it, MCP-15). */
export interface WorkerLogEntry {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  data?: Record<string, unknown>;
}

/** Why a sampling request failed, as the run sees it (a `SteamharnessError`'s code, message and data). */
export interface WorkerSamplingError {
  code: string;
  message: string;
  data?: Record<string, unknown>;
}

/** Worker → parent process messages. */
export type WorkerMessage =
  | ({ type: "log" } & WorkerLogEntry)
  | { type: "ready"; structure: StructureReport }
  | { type: "load-error"; error: { code: string; message: string } }
  | { type: "input-request"; request: UserInputRequest }
  | { type: "approval-request"; request: ToolPermissionRequest }
  /** `context.sampling.createMessage`: ask the calling MCP client's model (answered by `sampling-response`). */
  | { type: "sampling-request"; requestId: string; request: WorkflowSamplingRequest }
  /** `context.roots.list`: ask the calling MCP client for its roots (answered by `roots-response`). */
  | { type: "roots-request"; requestId: string }
  /** The run abandoned its sampling (or roots) request `requestId` (its signal aborted): the host stops waiting for the client. */
  | { type: "sampling-cancel"; requestId: string }
  /**
   * The run ended: its report, and the worker's verdict on it, sent once the worker has cleaned
   * up after the run (one message ends a run). `reusable`: the entrypoint returned (success or a
   * business errCode) and left nothing running, and the worker has restored its environment and
   * working directory, so it may serve another run (MCP-9).
   */
  | { type: "report"; report: WorkflowRunReport; reusable: boolean };

/**
 * True when `value` looks like a message of this protocol (the `type` tag is a string).
 *
 * @example
 * process.on("message", (m) => { if (isProtocolMessage(m)) handle(m) });
 */
export function isProtocolMessage(value: unknown): value is { type: string } {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}
