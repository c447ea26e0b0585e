import type { TelemetryCarrier } from "../../ports/telemetry.js";
import { randomUUID } from "node:crypto";
import { SteamharnessError } from "../../domain/errors.js";
import type { JsonValue } from "../../domain/json.js";
import { emptyRunResult, type WorkflowRunReport } from "../../domain/workflow/run-report.js";
import type { StructureEntrypoint, StructureReport } from "../../domain/workflow/workflow-definition.js";
import type { ArgumentsCheck } from "./argument-checks.js";
import type { FileParamSource, ProjectWatch, WorkflowProjectLocation } from "../../ports/project-files.js";
import type { WorkflowServerAuth } from "../../ports/workflow-run-stores.js";
import type { RunHandlers } from "../../ports/workflow-workers.js";
import { precheckProjectRunner, tenantDataDirs, type PrecheckedProjectRunner, type PrecheckOptions } from "./host-options.js";
import type { RunDataDirs } from "../../ports/project-files.js";
import { secretValues } from "../../domain/redaction.js";
import { runInWorker } from "./run-host.js";
import { WorkerPool } from "./worker-pool.js";
import { createRunSessionsRetention, createTenantRetentions, DEFAULT_RUN_RETENTION_MS } from "./run-retention.js";
import { createHostRunSnapshots } from "./host-run-snapshots.js";
import { createRunnerPausedRuns } from "./paused-runs.js";
import type { ProjectConfigurationSnapshot } from "../../domain/configuration/snapshot.js";
import type { WorkerTenantLimits } from "../../domain/workflow/worker-protocol.js";
import type { WorkerConfig } from "./worker-config.js";
import { tenantSegment } from "../tenants/tenant-segment.js";
import type { WorkflowRunPorts } from "../../ports/workflow-runs.js";
import type { PreparedArguments, ProjectRunner, WorkflowRunOptions } from "../../ports/project-runner.js";
import type { ApprovalStore } from "../../ports/approval-store.js";
import { governedAnswers, type ApprovalGovernance } from "../approvals/answer-approval.js";
import { startApprovalSweeper } from "../approvals/approval-sweeper.js";
import { createGovernedToolPermissions, type GovernedToolPermissions, type GovernedToolPermissionsOptions, type VersionedApprovalPolicy } from "../approvals/governed-tool-permissions.js";

/** Options of {@link createProjectRunner}. */
export interface ProjectRunnerOptions {
  /** What the runs execute on (worker processes, the project's files, the stores beside them), wired by the composition root. */
  ports: WorkflowRunPorts;
  /** The process environment (explicit variables); `process.env` by default. */
  env?: Record<string, string | undefined>;
  /**
   * Warm workers kept loaded ahead of calls, and the most runs at once (`--workers`, MCP-9);
   * 0 (the default) for one-shot CLI runs: a worker is started on demand, with no limit.
   */
  workers?: number;
  /**
   * With `workers` > 0: a worker whose run ended cleanly serves later runs (default `true`,
   * MCP-9); it is retired after a cancelled, timed-out, crashed or throwing run, a run that left
   * work running, {@link maxRunsPerWorker} runs, or an edit of the project's files. `false`
   * (`--fresh-worker`): every run gets a fresh worker process.
   */
  workerReuse?: boolean;
  /** Runs a reused worker serves before it is retired; 1000 by default. */
  maxRunsPerWorker?: number;
  /**
   * BUD-5 (`--tenant-concurrency`): the most runs one tenant ({@link WorkflowRunOptions.tenant})
   * has at once; none by default. Runs waiting for a worker are served round-robin across
   * tenants either way.
   */
  tenantConcurrency?: number;
  /**
   * BUD-4 (`mcp --http --keys`): the key store of the runs' tenants; a run given
   * {@link WorkflowRunOptions.tenantLimits} reserves and charges them there.
   */
  tenantStore?: WorkerConfig["tenantStore"];
  /** Kill a run after this many milliseconds (status `timeout`); none by default. */
  timeoutMs?: number;
  /** Where worker output goes (never the runner's stdout); `process.stderr` by default. */
  output?: NodeJS.WritableStream;
  /**
   * Fork the warm workers as the runner opens (default). `false` leaves it to
   * {@link ProjectRunner.startWorkers}, the first `structure()` or the first run.
   */
  startWorkers?: boolean;
  /**
   * The host as checked before any project code loads (project, data dirs, related projects,
   * file roots, run indexes): {@link precheckProjectRunner}.
   */
  prechecked: PrecheckedProjectRunner;
  /**
   * SES-12 (`--run-retention`): how long the agent sessions of a finished run are kept in the
   * session folder before a later run of this runner removes them (in bounded batches);
   * {@link DEFAULT_RUN_RETENTION_MS} (7 days) by default, `null` to keep them. Sessions of a
   * run waiting for an answer are never removed.
   */
  runRetentionMs?: number | null;
  /**
   * Issue 47 (`--approval-policy`): the runs' tool approvals are governed by `policy`, its
   * requests, decisions and audit chain kept in the store `store` opens (on the first approval,
   * in the host's resolved data dirs; closed with the runner). Every answer a run's handlers give
   * (terminal, MCP form, a paused run's answer) is recorded by the governed `decide()` with who
   * gave it ({@link governedAnswers}).
   */
  approvals?: {
    policy: VersionedApprovalPolicy;
    store: (dirs: RunDataDirs) => Promise<ApprovalStore>;
    /**
     * GOV-3: a long-running host (`mcp`) sweeps due requests every this many ms
     * ({@link startApprovalSweeper}; the store opens at the first sweep), so escalations and
     * expiries happen even when no run asks again. Absent: only lazily (a short `run`).
     */
    sweepMs?: number;
    /** GOV-3: told of each escalation (`--escalation-webhook`); see {@link GovernedToolPermissionsOptions.onEscalation}. */
    onEscalation?: GovernedToolPermissionsOptions["onEscalation"];
  };
}

/**
 * A run id: the UTC date and 12 random hex digits, e.g. `20260828-1a2b3c4d5e6f`.
 *
 * @example
 * newRunId(new Date("2026-08-28T10:00:00Z")) // "20260828-…"
 */
export function newRunId(now: Date = new Date()): string {
  // 48 random bits: the first 12 hex digits of a v4 UUID are all random, and randomUUID draws
  // from node's entropy cache instead of a synchronous randomBytes call per run.
  const uuid = randomUUID();
  return `${now.toISOString().slice(0, 10).replace(/-/g, "")}-${uuid.slice(0, 8)}${uuid.slice(9, 13)}`;
}

/**
 * Opens a workflow project for serving on the ports given: checks the host
 * ({@link precheckProjectRunner}, unless `prechecked` is given) and creates the runner.
 *
 * @example
 * const runner = await openProjectRunner({ projectDir: "/abs/project", workers: 2, ports: await services.workflowRunPorts() });
 */
export async function openProjectRunner(options: PrecheckOptions & Omit<ProjectRunnerOptions, "prechecked"> & Partial<Pick<ProjectRunnerOptions, "prechecked">>): Promise<ProjectRunner> {
  return createProjectRunner({ ...options, prechecked: options.prechecked ?? (await precheckProjectRunner(options)) });
}

/**
 * Opens a workflow project for serving: reads its manifest and `.env`, resolves data dirs,
 * related projects and the server login, and starts the warm worker pool (workers fork before
 * this resolves, so they load while the caller does its own start-up). With reused workers
 * (the default of a pool) the project's files are watched from the first fork on, and an edit
 * retires the workers that loaded the old code.
 *
 * @example
 * const runner = await createProjectRunner({ prechecked: await precheckProjectRunner({ projectDir: "/abs/project", ports }), workers: 2, ports });
 * const structure = await runner.structure();
 */
export async function createProjectRunner(options: ProjectRunnerOptions): Promise<ProjectRunner> {
  const { location, dirs, relatedProjects, filePolicy, runIndexOf } = options.prechecked;
  const { ports } = options;
  const dataDirs = (dataTenant?: string) => (dataTenant === undefined ? dirs : tenantDataDirs(dirs, dataTenant));
  const processEnv = options.env ?? process.env;
  const projectEnv = await ports.files.readEnv(location.directory);
  // TEN-7: a server URL without a credential is the command line's fault (exit 2, one line), found
  // here rather than as a failed run inside a worker.
  const { auth, workerEnv: env } = await ports.stores.serverLogin(processEnv, projectEnv, dirs.authDir);
  const workers = options.workers ?? 0;
  const reuse = workers > 0 && options.workerReuse !== false;
  const pool = new WorkerPool(
    {
      config: { projectDir: location.directory, dirs, relatedProjects, openStorage: workers > 0, ...(options.tenantStore ? { tenantStore: options.tenantStore } : {}) },
      env,
      ...(options.output ? { output: options.output } : {}),
    },
    { workers: ports.workers, size: workers, reuse, ...(options.maxRunsPerWorker ? { maxRunsPerWorker: options.maxRunsPerWorker } : {}), ...(options.tenantConcurrency !== undefined ? { tenantConcurrency: options.tenantConcurrency } : {}) },
  );
  // CFG-2: a pool's host takes its new runs' snapshots and keeps those of the runs that may run again on their id (paused, or of a resumable entrypoint; not against a configuration server).
  const snapshots = createHostRunSnapshots({
    stores: ports.stores,
    projectId: location.manifest.id,
    dataDir: dirs.dataDir,
    persistentValueStoreDir: dirs.persistentValueStoreDir,
    enabled: workers > 0 && !auth.serverUrl,
    tenantValuesDir: (tenant) => dataDirs(tenant).persistentValueStoreDir,
  });
  let watch: Promise<ProjectWatch> | undefined;
  let opensSnapshots: Promise<void> | undefined;
  const startPool = () => {
    // Begun before the first fork: the folder walk ends long before a worker has imported the project.
    watch ??= reuse ? ports.files.watch(location, () => pool.renew(), { exclude: Object.values(dirs) }) : undefined;
    pool.start();
    // Once the first worker has loaded the project: start-up (and the first tools/list) does not
    // share the cores with the host's SQLite opening; calls before that leave it to the worker.
    opensSnapshots ??= pool.structure().then(
      () => snapshots.open(),
      () => snapshots.open(),
    );
  };
  if (options.startWorkers !== false) startPool();
  const retentionOf = (dataTenant?: string) =>
    createRunSessionsRetention({
      openIndex: runIndexOf(dataTenant),
      projectId: location.manifest.id,
      retentionMs: options.runRetentionMs === undefined ? DEFAULT_RUN_RETENTION_MS : options.runRetentionMs,
      warn: (line) => (options.output ?? process.stderr).write(line),
    });
  const retention = retentionOf();
  // TEN-3: each tenant's runs are indexed (and pruned) in the tenant's own session folder.
  const tenantRetentions = createTenantRetentions((tenant) => retentionOf(tenant));
  // Compiled once per entrypoint of the loaded structure (MCP-3), not per call.
  const checks = new WeakMap<StructureEntrypoint, ArgumentsCheck>();
  // Issue 47: the governed adapter, its store opened on the first approval a run asks for.
  let approvalStore: Promise<ApprovalStore> | undefined;
  let governed: Promise<GovernedToolPermissions> | undefined;
  const approvals = options.approvals;
  const governedNow = (given: NonNullable<typeof approvals>) =>
    (governed ??= (approvalStore ??= given.store(dirs)).then((store) => createGovernedToolPermissions({ policy: given.policy, store, clock: { now: () => Date.now() }, ...(given.onEscalation ? { onEscalation: given.onEscalation } : {}) })));
  const sweeper = approvals?.sweepMs === undefined ? undefined : startApprovalSweeper({ sweep: async (limit) => (await governedNow(approvals)).sweep(limit) }, { intervalMs: approvals.sweepMs, onError: (error) => (options.output ?? process.stderr).write(`[steamharness] [approvals] sweep failed: ${error instanceof Error ? error.message : String(error)}\n`) });
  const governance: ApprovalGovernance | undefined = approvals && {
    request: async (request, signal) => (await governedNow(approvals)).request(request, signal),
    decide: async (input) => (await governedNow(approvals)).decide(input),
  };
  // The argument checks load with the first call (or `preloadValidation`), not with the runner
  // (the MCP handshake waits for neither): TypeBox for params; the JSON Schema validator only for
  // a project whose entrypoints declare an inputSchema, compiled as its structure loads. Later
  // calls reuse the loaded modules (then `prepare` runs synchronously) instead of import() again.
  const paramChecks = lazyModule(() => import("./argument-checks.js"));
  const schemaChecks = lazyModule(() => import("./input-schema-check.js"));
  const checkOf = (entrypoint: StructureEntrypoint): ArgumentsCheck | Promise<unknown> => {
    let check = checks.get(entrypoint);
    if (check) return check;
    const compile = entrypoint.inputSchema === undefined ? paramChecks.loaded()?.paramsCheck : schemaChecks.loaded()?.inputSchemaCheck;
    if (!compile) return entrypoint.inputSchema === undefined ? paramChecks.load() : schemaChecks.load();
    checks.set(entrypoint, (check = compile(entrypoint)));
    return check;
  };
  // MCP-3: an inputSchema is compiled when the project loads; one that does not compile fails the load, naming its entrypoint.
  // Not memoized here: the pool keeps the first structure, and the checks are kept per entrypoint.
  const loadStructure = async (): Promise<StructureReport> => {
    const report = await pool.structure();
    const declared = report.entrypoints.filter((entry) => entry.inputSchema !== undefined);
    if (declared.length > 0) await schemaChecks.load();
    for (const entry of declared) checkOf(entry);
    return report;
  };
  const runner: ProjectRunner = {
    location,
    dirs,
    auth,
    ports,
    secrets: secretValues(env),
    dataDirs,
    ...createRunnerPausedRuns({ ports, location, dataDirs }),
    structure() {
      startPool();
      return loadStructure();
    },
    startWorkers() {
      startPool();
    },
    async preloadValidation() {
      await paramChecks.load().catch(() => undefined);
    },
    async entrypoint(id) {
      const found = (await runner.structure()).entrypoints.find((entry) => entry.id === id);
      if (!found) throw new SteamharnessError("not_found", `unknown entrypoint ${JSON.stringify(id)}`, { field: "entrypoint" });
      return found;
    },
    prepare(entrypoint, args, tenant) {
      const check = checkOf(entrypoint);
      if (typeof check !== "function") return check.then(() => runner.prepare(entrypoint, args, tenant));
      const problems = check(args ?? {});
      if (problems.length > 0) {
        throw new SteamharnessError("input_validation", `invalid arguments for ${entrypoint.id}: ${problems.join("; ")}`, { data: { problems } });
      }
      const given = (args ?? {}) as Record<string, JsonValue>;
      // Only file params need the file system (their paths are checked and imported).
      if (!entrypoint.params.some((param) => param.type === "file")) return { params: { ...given }, files: {} };
      return ports.files.checkFileParams(entrypoint.params, given, { policy: filePolicy, ...(tenant !== undefined ? { tenantFolder: tenantSegment(tenant) } : {}) });
    },
    async run(entrypoint, prepared, handlers, runOptions = {}) {
      const { signal, onQueued, tenant, dataTenant } = runOptions;
      const request = {
        runId: runOptions.runId ?? newRunId(),
        entrypointId: entrypoint.id,
        params: prepared.params,
        files: prepared.files,
        ...(runOptions.trace ? { trace: runOptions.trace } : {}),
        ...(tenant !== undefined ? { tenant } : {}),
        ...(tenant !== undefined && runOptions.tenantLimits ? { tenantLimits: runOptions.tenantLimits } : {}),
        ...(dataTenant !== undefined ? { dataTenant } : {}),
        ...(runOptions.runId === undefined ? { newRun: true } : {}),
      };
      const runRetention = dataTenant === undefined ? retention : tenantRetentions.of(dataTenant);
      const base = { runId: request.runId, projectId: location.manifest.id, entrypointId: entrypoint.id };
      startPool();
      let lease;
      try {
        // A free worker is taken in this turn; a call that must wait (or is cancelled already) queues.
        lease = (signal?.aborted ? undefined : pool.acquireNow(tenant)) ?? (await pool.acquire({ ...(tenant !== undefined ? { tenant } : {}), ...(signal ? { signal } : {}), ...(onQueued ? { onQueued } : {}) }));
      } catch (error) {
        const message = (error as Error)?.message ?? String(error);
        return { ...base, status: "cancelled", result: { data: emptyRunResult(message) }, error: { code: "cancelled", message } };
      }
      let report: WorkflowRunReport;
      const failedWith = (failure: SteamharnessError): WorkflowRunReport => ({ ...base, status: "failed", result: { data: emptyRunResult(failure.message) }, error: { code: failure.code ?? "storage_failure", message: failure.message } });
      try {
        // The new run's snapshot as it starts — with a worker in hand, so a queued run is not
        // given the configuration of when it queued — when the host's stores are open (else the
        // worker takes it). A store that cannot be read fails the run before it starts (SES-5).
        const taking = request.newRun ? snapshots.take() : undefined;
        let snapshot: ProjectConfigurationSnapshot | undefined;
        if (taking) {
          try {
            snapshot = await taking;
          } catch (error) {
            return failedWith(error as SteamharnessError);
          }
        }
        const marking = runRetention.started(request.runId);
        if (marking) await marking;
        const running = runInWorker(lease.worker, snapshot ? { ...request, snapshot } : request, {
          projectId: location.manifest.id,
          handlers: governance ? { ...handlers, onApproval: governedAnswers(governance, (asked) => handlers.onApproval(asked), runOptions.requester) } : handlers,
          ...(signal ? { signal } : {}),
          ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        });
        // CFG-2: a run keeps its snapshot only when it may run again on its id — an entrypoint
        // declared resumable (another host takes its task over when its owner dies, TEN-6: saved
        // while the worker runs) or a run that pauses (answered, or continued as a task) — and the
        // call is answered once it is committed. Any other run keeps nothing: no SQLite commit per
        // call, and no row per call that nothing prunes.
        const saving = snapshot && entrypoint.resumable === true ? snapshots.save(request.runId, snapshot, dataTenant) : undefined;
        report = await running;
        const unsaved = saving ? await saving : snapshot && report.status === "waiting_for_input" ? await snapshots.save(request.runId, snapshot, dataTenant) : undefined;
        if (unsaved) report = failedWith(unsaved as SteamharnessError);
      } finally {
        lease.release();
      }
      const marking = runRetention.ended(report, runOptions.retainMs);
      if (marking) await marking;
      return report;
    },
    workerPids() {
      return pool.pids();
    },
    async close() {
      void watch?.then((running) => running.close());
      await Promise.all([pool.close(), retention.close(), tenantRetentions.close()]);
      await snapshots.close();
      await sweeper?.stop();
      await approvalStore?.then((store) => store.close(), () => undefined);
    },
  };
  return runner;
}

/** A module imported on first need, once; `loaded()` gives it after the import resolved. A failed import is tried again on the next need. */
function lazyModule<M>(importer: () => Promise<M>): { load(): Promise<M>; loaded(): M | undefined } {
  let loading: Promise<M> | undefined;
  let module: M | undefined;
  const load = () =>
    (loading ??= importer().then(
      (value) => (module = value),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    ));
  return { load, loaded: () => module };
}
