import type { JsonValue } from "../domain/json.js";
import type { PausedRun } from "../domain/workflow/paused-run.js";
import type { WorkflowRunReport } from "../domain/workflow/run-report.js";
import type { WorkerTenantLimits } from "../domain/workflow/worker-protocol.js";
import type { StructureEntrypoint, StructureReport } from "../domain/workflow/workflow-definition.js";
import type { FileParamSource, RunDataDirs, WorkflowProjectLocation } from "./project-files.js";
import type { TelemetryCarrier } from "./telemetry.js";
import type { WorkflowServerAuth } from "./workflow-run-stores.js";
import type { RunHandlers } from "./workflow-workers.js";
import type { WorkflowRunPorts } from "./workflow-runs.js";

// ARCH-7: the workflow-run use case as the surfaces hold it (MCP, the CLI): an opened project
// runner. The app's createProjectRunner (src/app/workflow-runs/project-runner.ts) implements it.

/** Checked arguments of one run: plain params and, apart, the checked file params (real path and name). */
export interface PreparedArguments {
  params: Record<string, JsonValue>;
  files: Record<string, FileParamSource | FileParamSource[]>;
}

/** Options of one {@link ProjectRunner.run}. */
export interface WorkflowRunOptions {
  /** Aborting cancels the run (or its wait for a worker). */
  signal?: AbortSignal;
  /** Told when every worker slot is busy and the run waits for one (`busy` runs in progress). */
  onQueued?: (busy: number) => void;
  /**
   * BUD-5: who the run is for (an MCP HTTP client's verified identity): waiting runs are served
   * round-robin across tenants and each tenant holds at most `tenantConcurrency` workers. One
   * shared tenant when not given.
   */
  tenant?: string;
  /**
   * BUD-4: the key store's limits on `tenant` (the API key's tenant): every model call of the
   * run's agents reserves the tenant's budget in the key store's ledger, and its settled tokens
   * count in the tenant's token window. Needs the runner's `tenantStore` option.
   */
  tenantLimits?: WorkerTenantLimits;
  /**
   * TEN-3: the tenant whose data namespace the run reads and writes — its stores, agent sessions,
   * run index and created files under `tenants/<segment>` of each data dir.
   * Absent: the runner's own data dirs (stdio, a single token, no authorization).
   */
  dataTenant?: string;
  /**
   * GOV-1: the principal the run is for (tenant key and subject), recorded as the requester of
   * its governed approvals and refused as their approver (GOV-4). Absent: a local run.
   */
  requester?: { tenant: string; subject: string };
  /** Run again under this run id (a paused run answered later, DX-10); default a new id. */
  runId?: string;
  /** The trace context the run continues (the MCP call's span, OBS-3). */
  trace?: TelemetryCarrier | null;
  /**
   * SES-12: how long the run's agent sessions are kept once it ended — also when it ended
   * waiting for an answer, because whatever keeps the pause forgets it after this (an MCP task's
   * TTL). Default: the runner's `runRetentionMs` for a finished run, forever for a paused one.
   */
  retainMs?: number;
}

/** A workflow project ready to serve: structure, argument checks and isolated runs. */
export interface ProjectRunner {
  readonly location: WorkflowProjectLocation;
  readonly dirs: RunDataDirs;
  readonly auth: WorkflowServerAuth;
  /** The ports the runner was opened with (its paused runs and attachments open their stores there). */
  readonly ports: WorkflowRunPorts;
  /** Credential values (admin key, secret-looking env variables) to redact from results. */
  readonly secrets: readonly string[];
  /** The structure report, computed once by a worker (project code never runs in the runner). */
  structure(): Promise<StructureReport>;
  /** The entrypoint, or `not_found`. */
  entrypoint(id: string): Promise<StructureEntrypoint>;
  /**
   * Validates arguments (schema, then file paths); `input_validation` with every problem. Once
   * TypeBox is loaded (see {@link preloadValidation}), an entrypoint without file params is
   * checked synchronously — the value itself is returned, or the error thrown — so a server can
   * send the run message without yielding to the event loop; otherwise a promise. `tenant` (the
   * caller's tenant key) picks the file roots of a `{tenant}` root (TEN-2).
   */
  prepare(entrypoint: StructureEntrypoint, args: unknown, tenant?: string): PreparedArguments | Promise<PreparedArguments>;
  /**
   * Loads what `prepare` needs (TypeBox) ahead of the first call; idempotent, never rejects (a
   * failure is the first `prepare`'s to report). The runner does not load it by itself, so a server
   * answers its handshake first.
   */
  preloadValidation(): Promise<void>;
  /**
   * Runs an entrypoint in a worker process — a warm one from the pool, reused after clean runs
   * unless `workerReuse` is false (MCP-9) — waiting for a free slot when `workers` runs are in
   * progress, and resolves the run report. With a worker free and nothing to mark in the
   * retention index, the run message goes out within the caller's turn of the event loop (only
   * the configuration snapshot's read is awaited first, CFG-2: the host takes a new run's
   * snapshot, sends it with the run and saves it while the worker runs; the report is resolved
   * once it is saved, or as a `storage_failure` when it could not be).
   */
  run(entrypoint: StructureEntrypoint, prepared: PreparedArguments, handlers: RunHandlers, options?: WorkflowRunOptions): Promise<WorkflowRunReport>;
  /**
   * TEN-3: the data dirs a run of `dataTenant` reads and writes (the tenant's folder of each,
   * the host's data and auth dirs unchanged); {@link dirs} without one.
   */
  dataDirs(dataTenant?: string): RunDataDirs;
  /**
   * DX-10: the run of this id kept when it ended waiting for a person (in `dataTenant`'s own
   * store when given, TEN-3), or `null`. Rejects only when its store cannot be opened or read.
   */
  findPausedRun(runId: string, dataTenant?: string): Promise<PausedRun | null>;
  /**
   * DX-10: keeps a run that ended `waiting_for_input` by its run id (replacing what was kept),
   * forgets an answered run (`start.answers` given) that ended otherwise; does nothing for an
   * unanswered run that did not pause. `start.answers` carry over from the kept run answered.
   */
  keepPausedRun(report: WorkflowRunReport, start: { entrypointId: string; args: JsonValue; answers?: PausedRun["answers"]; tenant?: string; dataTenant?: string }): Promise<void>;
  /** Starts the warm workers if they are not yet (idempotent). */
  startWorkers(): void;
  /** Process ids of the runner's live workers (warm, running or finishing). */
  workerPids(): number[];
  /** Ends every worker the runner started. */
  close(): Promise<void>;
}
