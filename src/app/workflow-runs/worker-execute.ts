import { isSteamharnessError } from "../../domain/errors.js";
import type { JsonValue } from "../../domain/json.js";
import { redactSecrets, secretValues } from "../../domain/redaction.js";
import { emptyRunResult, normalizeRunReturn, statusOfResult, type WorkflowRunReport } from "../../domain/workflow/run-report.js";
import type { WorkerRunRequest } from "../../domain/workflow/worker-protocol.js";
import type { ToolCatalogEntry } from "../../domain/node-context.js";
import type { StructureReport, WorkflowDefinition } from "../../domain/workflow/workflow-definition.js";
import type { FileParamSource, RunDataDirs } from "../../ports/project-files.js";
import type { HarnessRuntime } from "../../ports/runtime.js";
import type { Storage } from "../../ports/storage.js";
import type { WorkerConfig } from "./worker-config.js";
import type { WorkerConfigurations } from "./worker-configuration.js";
import { createWorkerRunContext, type ParentBridge } from "./worker-run-context.js";
import type { WorkerTenants } from "./worker-tenant-limits.js";

// ARCH-7: one run inside a workflow worker process — the use case's, so the worker's main
// (compose/workflow-worker.ts) only wires the process and hands each run here.

/** What a worker's runs are given by its process: the loaded project and the opened stores. */
export interface WorkerRunDeps {
  project: { manifest: { id: string }; definition: WorkflowDefinition; structure: StructureReport };
  config: WorkerConfig;
  /** The project's tool catalog (WF-2). */
  tools: readonly ToolCatalogEntry[];
  /** The stores of a run: its tenant's own (TEN-3), else the host's. */
  openRunStorage(dataTenant: string | undefined): Promise<Storage>;
  /** The data dirs of a run: its tenant's own (TEN-3), else `config.dirs`. */
  runDirs(dataTenant: string | undefined): RunDataDirs;
  /** Copies the run's checked file params into the managed-file store; resolves with the params that name them. */
  importFiles(storage: Storage, projectId: string, files: Record<string, FileParamSource | FileParamSource[]>): Promise<Record<string, JsonValue>>;
  configurations: WorkerConfigurations;
  tenants: WorkerTenants;
  makeDirectory(directory: string): void;
  runtime: HarnessRuntime;
}

/** The report of a run, and whether the entrypoint returned (rather than threw or was never found). */
export interface ExecutedRun {
  report: WorkflowRunReport;
  returned: boolean;
}

/**
 * Runs one entrypoint in this worker: defaults and file params filled in, the configuration
 * snapshot taken (CFG-2), the tenant's limits applied (BUD-4), then the project's `run`. Never
 * throws: a failure, a cancel or a missing entrypoint is the report (the stack goes to stderr, redacted).
 *
 * @example
 * const { report } = await executeWorkerRun(run, { controller, bridge }, deps);
 */
export async function executeWorkerRun(run: WorkerRunRequest, { controller, bridge }: { controller: AbortController; bridge: ParentBridge }, deps: WorkerRunDeps): Promise<ExecutedRun> {
  const loaded = deps.project;
  const base = { runId: run.runId, projectId: loaded.manifest.id, entrypointId: run.entrypointId };
  const entry = loaded.definition.entrypoints[run.entrypointId];
  const structure = loaded.structure.entrypoints.find((e) => e.id === run.entrypointId);
  if (!entry || !structure) {
    const report: WorkflowRunReport = { ...base, status: "failed", result: { data: emptyRunResult() }, error: { code: "not_found", message: `no entrypoint ${run.entrypointId}` } };
    return { report, returned: false };
  }
  try {
    const store = await deps.openRunStorage(run.dataTenant);
    const params: Record<string, JsonValue> = { ...run.params };
    for (const param of structure.params) {
      if (params[param.name] === undefined && param.default !== undefined) params[param.name] = param.default;
    }
    Object.assign(params, await deps.importFiles(store, loaded.manifest.id, run.files));
    // CFG-2: the snapshot is taken before the entrypoint runs, and kept with the run id — by the
    // host when it sent one (it saves it before answering), else here.
    const configuration = run.snapshot ? deps.configurations.given(run.snapshot) : await deps.configurations.forRun(store, loaded.manifest.id, run.runId, run.newRun === true);
    // BUD-4: the key store's cap on the run's tenant, reserved by every model call of its agents.
    const tenantLimits = await deps.tenants.forRun(run.tenant, run.tenantLimits);
    const context = createWorkerRunContext({
      ...base,
      storage: store,
      bridge,
      signal: controller.signal,
      fileCreateDir: deps.runDirs(run.dataTenant).fileCreateStoreDir,
      makeDirectory: deps.makeDirectory,
      runtime: deps.runtime,
      relatedProjects: deps.config.relatedProjects,
      tools: deps.tools,
      configuration,
      ...(run.trace ? { trace: run.trace } : {}),
      ...(run.tenant !== undefined ? { tenantId: run.tenant } : {}),
      ...(tenantLimits ? { tenantLimits } : {}),
      ...(run.forwardLogs ? { forwardLogs: true } : {}),
    });
    const result = normalizeRunReturn(await entry.run(params, context));
    const status = statusOfResult(result);
    if (status === "success") return { report: { ...base, status, result: { data: result } }, returned: true };
    const error = { code: "business_error", message: result.errMessage || `the workflow returned errCode ${result.errCode}` };
    return { report: { ...base, status, result: { data: result }, error }, returned: true };
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    if (isSteamharnessError(error, "cancelled")) {
      return { report: { ...base, status: "cancelled", result: { data: emptyRunResult(message) }, error: { code: "cancelled", message } }, returned: false };
    }
    // The report stays concise; the stack goes to stderr (forwarded by the host), redacted like results.
    const stack = error instanceof Error && error.stack ? error.stack : message;
    process.stderr.write(`[steamharness] run ${run.runId} (${run.entrypointId}) threw:\n${redactSecrets(stack, secretValues(process.env))}\n`);
    const code = isSteamharnessError(error) ? error.code : "run_failed";
    return { report: { ...base, status: "failed", result: { data: emptyRunResult(message) }, error: { code, message } }, returned: false };
  }
}
