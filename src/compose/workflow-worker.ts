/**
 * Entry of a workflow worker process (built as dist/workflow-worker.js), and its composition
 * (ARCH-7): the run itself is the app's (src/app/workflow-runs), the project's loading and file
 * imports the worker-process adapter's, the stores this root's; each run is the app's executeWorkerRun. The host forks it with
 * an IPC channel; the worker loads the project, reports its structure, then runs entrypoints one
 * at a time until the host tells it to exit (MCP-9: a host may hand a worker whose run ended
 * cleanly another run, or retire it after each one). Every run gets its own context, abort
 * signal and user-input bridge; afterwards the environment and working directory are restored,
 * and `done` says whether the run left the worker fit for another. Project output on
 * stdout/stderr is the host's to forward; protocol messages travel only over IPC.
 */
import { openProcessRuntime } from "./telemetry.js";
import { isSteamharnessError } from "../domain/errors.js";
import type { Storage } from "../ports/storage.js";
import { importFileParams } from "../adapters/driven/worker-process/file-import.js";
import { loadWorkflowProject, locateWorkflowProject, type LoadedWorkflowProject } from "../adapters/driven/worker-process/project-loader.js";
import { createParentBridge, type ParentBridge } from "../app/workflow-runs/worker-run-context.js";
import { executeWorkerRun } from "../app/workflow-runs/worker-execute.js";
import { restoreWorkerState, snapshotWorkerState, type WorkerStateSnapshot } from "../app/workflow-runs/worker-state.js";
import { isProtocolMessage, type ParentMessage, type WorkerMessage, type WorkerRunRequest } from "../domain/workflow/worker-protocol.js";
import type { WorkerConfig } from "../app/workflow-runs/worker-config.js";
import { openWorkflowStorage } from "./workflow-storage.js";
import { tenantDataDirs } from "../app/workflow-runs/host-options.js";
import type { WorkflowDataDirs } from "../adapters/driven/worker-process/data-dirs.js";
import { createWorkerConfigurations, type WorkerConfigurations } from "../app/workflow-runs/worker-configuration.js";
import { createWorkerTenants, type WorkerTenants } from "../app/workflow-runs/worker-tenant-limits.js";
import { workflowToolCatalog } from "../domain/workflow/workflow-definition.js";
import { createTenantCache } from "../app/tenants/tenant-cache.js";
import { projectFiles, workflowRunStores } from "./workflow-runs.js";

const send = (message: WorkerMessage): Promise<void> =>
  new Promise((resolveSend) => {
    if (!process.send || !process.connected) return resolveSend();
    process.send(message, undefined, {}, () => resolveSend());
  });

/** The run in progress: its cancel switch and the bridge its questions travel through. */
interface CurrentRun {
  controller: AbortController;
  bridge: ParentBridge;
}

let current: CurrentRun | undefined;
let exitAfterRun = false;
let idleState: WorkerStateSnapshot | undefined;
/** The host sends its whole data-dir layout (the agent sessions' folder among them). */
type HostWorkerConfig = WorkerConfig & { dirs: WorkflowDataDirs };
let config: HostWorkerConfig | undefined;
let project: LoadedWorkflowProject | undefined;
let storage: Promise<Storage> | undefined;
/** TEN-3: the stores of the tenants this worker ran for; at most 8 stay open between runs (the worker runs one run at a time). */
const tenantStorages = createTenantCache((tenant) => {
  const opening = openWorkflowStorage(tenantDataDirs(config!.dirs, tenant));
  const item = { opening, close: () => opening.then((store) => store.close()) };
  // A store that failed to open is tried again by the tenant's next run.
  opening.catch(() => tenantStorages.forget(tenant, item));
  return item;
}, 8);
let configurations: WorkerConfigurations | undefined;
let tenants: WorkerTenants | undefined;
let tools: ReturnType<typeof workflowToolCatalog> = [];

function openStorage(): Promise<Storage> {
  if (!config) throw new Error("worker not initialised");
  storage ??= openWorkflowStorage(config.dirs);
  return storage;
}

/** The stores of a run: its tenant's own (TEN-3), else the host's. */
function openRunStorage(dataTenant: string | undefined): Promise<Storage> {
  return dataTenant === undefined ? openStorage() : tenantStorages.of(dataTenant).opening;
}

async function init(next: HostWorkerConfig): Promise<void> {
  config = next;
  tenants = createWorkerTenants(next.tenantStore, workflowRunStores);
  // The first run must find the telemetry in place (it loads only with an OTLP endpoint set).
  await processRuntime;
  try {
    project = await loadWorkflowProject(await locateWorkflowProject(next.projectDir));
    // Checked by the structure report already; kept once for every run (WF-2).
    tools = workflowToolCatalog(project.definition, project.mainPath);
    configurations = createWorkerConfigurations(next.dirs.dataDir, workflowRunStores);
    if (next.openStorage) {
      // `ready` waits for the stores: a handed-out worker must be able to start its run at once,
      // or `--timeout` would count the SQLite opening (the catalog cache keeps the first
      // tools/list from waiting for this).
      // A store that cannot open must not hide the tools: the fault is reported by the run.
      const warmed = configurations.preload();
      await openStorage().catch((error: unknown) => {
        storage = undefined;
        process.stderr.write(`[steamharness] cannot open the workflow stores yet: ${(error as Error)?.message ?? String(error)}\n`);
      });
      await warmed;
    }
    // The standard streams' handles are made on first use (reading `process.stdout` is enough);
    // made here, they belong to the idle worker, not to the first run that touches them.
    void process.stdout;
    void process.stderr;
    idleState = snapshotWorkerState();
    spareController = readyController();
    await send({ type: "ready", structure: project.structure });
  } catch (error) {
    const code = isSteamharnessError(error) ? error.code : "internal";
    await send({ type: "load-error", error: { code, message: (error as Error)?.message ?? String(error) } });
    process.exit(1);
  }
}

async function serve(run: WorkerRunRequest): Promise<void> {
  if (current) {
    process.stderr.write(`[steamharness] run ${run.runId} refused: the worker is busy with another run\n`);
    process.exit(1);
  }
  // Questions asked after the run has ended (by work it left behind) never reach the host, so
  // they cannot be mistaken for questions of the worker's next run.
  const thisRun: CurrentRun = {
    controller: takeController(),
    bridge: createParentBridge((message) => {
      if (current === thisRun) void send(message);
    }),
  };
  current = thisRun;
  const runtime = (await processRuntime).runtime;
  const deps = { project: project!, config: config!, tools, openRunStorage, importFiles: importFileParams, configurations: configurations!, tenants: tenants!, makeDirectory: projectFiles.makeDirectory, runtime };
  const { report, returned } = await executeWorkerRun(run, thisRun, deps);
  // Answers that arrive from now on belong to no run: the next run gets a new bridge.
  current = undefined;
  // The run's spans leave before its report (the caller's answer may close the trace).
  await runtime.telemetry.flush();
  // The report goes out before the cleanup below, so the caller's answer does not wait for it;
  // the host hands this worker no further run (nor ends it) before the verdict that follows.
  void send({ type: "report", report });
  // One turn of the event loop first: a file operation the run awaited last is still listed as
  // active while its promise's continuations run.
  await new Promise((resolveTurn) => setImmediate(resolveTurn));
  const leftovers = idleState ? restoreWorkerState(idleState) : ["no idle state"];
  if (returned && leftovers.length > 0) {
    process.stderr.write(`[steamharness] run ${run.runId} (${run.entrypointId}) left ${leftovers.join(", ")} running: its worker serves no further run\n`);
  }
  await send({ type: "done", runId: run.runId, reusable: returned && leftovers.length === 0 });
  if (exitAfterRun) await exit();
  // The next run's cancel switch is made while the worker is idle (see takeController).
  else spareController ??= readyController();
}

/** A cancel switch whose signal exists already: Node makes an AbortSignal on first read, at a cost worth keeping off a run's start. */
const readyController = () => {
  const controller = new AbortController();
  void controller.signal;
  return controller;
};
let spareController: AbortController | undefined;

/** The cancel switch of a run starting now: the one made after the last run, else a new one. */
function takeController(): AbortController {
  const controller = spareController ?? readyController();
  spareController = undefined;
  return controller;
}

async function exit(): Promise<void> {
  // A host closing while this run is in progress lets it finish first (it kills after a grace).
  if (current) {
    exitAfterRun = true;
    return;
  }
  await Promise.all([storage?.then((store) => store.close()).catch(() => undefined), tenantStorages.close(), configurations?.close(), tenants?.close(), processRuntime.then((opened) => opened.shutdown())]);
  process.exit(0);
}

// OBS-3: with an OTLP endpoint in the environment the worker reports its runs' spans too.
// ARCH-6: the worker process's one runtime, built at start (telemetry included) and handed to each run.
const processRuntime = openProcessRuntime();

process.on("message", (raw: unknown) => {
  if (!isProtocolMessage(raw)) return;
  const message = raw as ParentMessage;
  // The host's pool sends the use case's WorkerConfig (app/workflow-runs/worker-pool.ts).
  if (message.type === "init") void init(message.config as HostWorkerConfig);
  else if (message.type === "run") void serve(message.run);
  else if (message.type === "exit") void exit();
  else current?.bridge.handle(message);
});
// The host going away (cancel, crash, shutdown) ends the run: a worker never outlives its host.
process.on("disconnect", () => {
  current?.controller.abort();
  process.exit(0);
});
if (!process.send) {
  process.stderr.write("[steamharness] workflow-worker must be started by steamharness (it needs an IPC channel)\n");
  process.exit(2);
}
