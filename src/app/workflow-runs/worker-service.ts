import { isSteamharnessError } from "../../domain/errors.js";
import { workflowToolCatalog, type StructureReport, type WorkflowDefinition } from "../../domain/workflow/workflow-definition.js";
import type { ParentMessage, WorkerMessage, WorkerRunRequest } from "../../domain/workflow/worker-protocol.js";
import type { RunDataDirs } from "../../ports/project-files.js";
import type { HarnessRuntime } from "../../ports/runtime.js";
import type { Storage } from "../../ports/storage.js";
import type { WorkflowRunStores } from "../../ports/workflow-run-stores.js";
import { createTenantCache } from "../tenants/tenant-cache.js";
import { tenantDataDirs } from "./host-options.js";
import type { WorkerConfig } from "./worker-config.js";
import { createWorkerConfigurations } from "./worker-configuration.js";
import { executeWorkerRun, type WorkerRunDeps } from "./worker-execute.js";
import { createParentBridge, type ParentBridge } from "./worker-run-context.js";
import { restoreWorkerState, snapshotWorkerState, type WorkerStateSnapshot } from "./worker-state.js";
import { createWorkerTenants } from "./worker-tenant-limits.js";

// ARCH-7, ARCH-12: the life of a workflow worker process — load the project once, run entrypoints
// one at a time, restore the process between runs, close on exit — as the use case's. The
// process entry (compose/workflow-worker.ts) wires IPC, the project loader and the stores in.

/** A loaded workflow project, as the worker's runs need it. */
export interface WorkerProject {
  manifest: { id: string };
  definition: WorkflowDefinition;
  structure: StructureReport;
  mainPath: string;
}

/** The host's configuration of a worker, with its whole data-dir layout (the agent sessions' folder among them). */
export type HostWorkerConfig<Dirs extends RunDataDirs = RunDataDirs> = WorkerConfig & { dirs: Dirs };

/** What the process gives the worker service: the protocol channel, the project loader, the stores. */
export interface WorkerServiceAdapters<Dirs extends RunDataDirs> {
  /** Sends a protocol message to the host; resolves once it is handed to the channel. */
  send(message: WorkerMessage): Promise<void>;
  /** Loads the project in `projectDir` (rejects with the load's fault). */
  loadProject(projectDir: string): Promise<WorkerProject>;
  /** Opens the workflow stores of a data-dir layout. */
  openStorage(dirs: Dirs): Promise<Storage>;
  importFiles: WorkerRunDeps["importFiles"];
  makeDirectory(directory: string): void;
  stores: Pick<WorkflowRunStores, "clock" | "openConfigurations" | "openKeyStore">;
  /** The process's runtime, telemetry included; awaited before the first run. */
  runtime: Promise<{ runtime: HarnessRuntime; shutdown(): Promise<void> }>;
  /** Ends the process (after `exit`, or a load error with code 1). */
  exitProcess(code: number): never | void;
  /** Where the worker says what went wrong outside a run. */
  warn(line: string): void;
}

/** The run in progress: its cancel switch and the bridge its questions travel through. */
interface CurrentRun {
  controller: AbortController;
  bridge: ParentBridge;
}

/** A cancel switch whose signal exists already: Node makes an AbortSignal on first read, at a cost worth keeping off a run's start. */
const readyController = () => {
  const controller = new AbortController();
  void controller.signal;
  return controller;
};

/**
 * The worker service of one worker process (MCP-9): `handle` takes each protocol message of the
 * host — `init` loads the project and reports its structure, `run` runs an entrypoint (one at a
 * time; the process is restored before the report goes out, and the report says whether the run
 * left the worker fit for another), `exit` closes the stores (after the run in progress), anything else
 * is an answer for the current run's bridge. `abort` cancels the run in progress.
 *
 * @example
 * const worker = createWorkerService(adapters);
 * process.on("message", (message) => worker.handle(message as ParentMessage));
 */
export function createWorkerService<Dirs extends RunDataDirs>(adapters: WorkerServiceAdapters<Dirs>) {
  let current: CurrentRun | undefined;
  let exitAfterRun = false;
  let idleState: WorkerStateSnapshot | undefined;
  let config: HostWorkerConfig<Dirs> | undefined;
  let project: WorkerProject | undefined;
  let storage: Promise<Storage> | undefined;
  let spareController: AbortController | undefined;
  let tools: ReturnType<typeof workflowToolCatalog> = [];
  let configurations: ReturnType<typeof createWorkerConfigurations> | undefined;
  let tenants: ReturnType<typeof createWorkerTenants> | undefined;
  /** TEN-3: the stores of the tenants this worker ran for; at most 8 stay open between runs (the worker runs one run at a time). */
  const tenantStorages = createTenantCache((tenant) => {
    // The tenant's dirs are worked out once with its stores, not on every run (TEN-1's per-call cost).
    const dirs = tenantDataDirs(config!.dirs, tenant);
    const opening = adapters.openStorage(dirs);
    const item = { dirs, opening, close: () => opening.then((store) => store.close()) };
    // A store that failed to open is tried again by the tenant's next run.
    opening.catch(() => tenantStorages.forget(tenant, item));
    return item;
  }, 8);

  const openStorage = (): Promise<Storage> => {
    if (!config) throw new Error("worker not initialised");
    storage ??= adapters.openStorage(config.dirs);
    return storage;
  };
  /** The stores of a run: its tenant's own (TEN-3), else the host's. */
  const openRunStorage = (dataTenant: string | undefined): Promise<Storage> => (dataTenant === undefined ? openStorage() : tenantStorages.of(dataTenant).opening);
  /** The data dirs of a run: its tenant's own (TEN-3), else the host's. */
  const runDirs = (dataTenant: string | undefined): Dirs => (dataTenant === undefined ? config!.dirs : tenantStorages.of(dataTenant).dirs);

  /** The cancel switch of a run starting now: the one made after the last run, else a new one. */
  const takeController = (): AbortController => {
    const controller = spareController ?? readyController();
    spareController = undefined;
    return controller;
  };

  async function init(next: HostWorkerConfig<Dirs>): Promise<void> {
    config = next;
    tenants = createWorkerTenants(next.tenantStore, adapters.stores);
    // The first run must find the telemetry in place (it loads only with an OTLP endpoint set).
    await adapters.runtime;
    try {
      project = await adapters.loadProject(next.projectDir);
      // Checked by the structure report already; kept once for every run (WF-2).
      tools = workflowToolCatalog(project.definition, project.mainPath);
      configurations = createWorkerConfigurations(next.dirs.dataDir, adapters.stores);
      if (next.openStorage) {
        // `ready` waits for the stores: a handed-out worker must be able to start its run at once,
        // or `--timeout` would count the SQLite opening (the catalog cache keeps the first
        // tools/list from waiting for this). A store that cannot open must not hide the tools:
        // the fault is reported by the run.
        const warmed = configurations.preload();
        await openStorage().catch((error: unknown) => {
          storage = undefined;
          adapters.warn(`[steamharness] cannot open the workflow stores yet: ${(error as Error)?.message ?? String(error)}`);
        });
        await warmed;
      }
      // The standard streams' handles are made on first use (reading `process.stdout` is enough);
      // made here, they belong to the idle worker, not to the first run that touches them.
      void process.stdout;
      void process.stderr;
      idleState = snapshotWorkerState();
      spareController = readyController();
      await adapters.send({ type: "ready", structure: project.structure });
    } catch (error) {
      const code = isSteamharnessError(error) ? error.code : "internal";
      await adapters.send({ type: "load-error", error: { code, message: (error as Error)?.message ?? String(error) } });
      adapters.exitProcess(1);
    }
  }

  async function serve(run: WorkerRunRequest): Promise<void> {
    if (current) {
      adapters.warn(`[steamharness] run ${run.runId} refused: the worker is busy with another run`);
      adapters.exitProcess(1);
      return;
    }
    // Questions asked after the run has ended (by work it left behind) never reach the host, so
    // they cannot be mistaken for questions of the worker's next run.
    const thisRun: CurrentRun = {
      controller: takeController(),
      bridge: createParentBridge((message) => {
        if (current === thisRun) void adapters.send(message);
      }),
    };
    current = thisRun;
    const runtime = (await adapters.runtime).runtime;
    const deps: WorkerRunDeps = { project: project!, config: config!, tools, openRunStorage, runDirs, importFiles: adapters.importFiles, configurations: configurations!, tenants: tenants!, makeDirectory: adapters.makeDirectory, runtime };
    const { report, returned } = await executeWorkerRun(run, thisRun, deps);
    // Answers that arrive from now on belong to no run: the next run gets a new bridge.
    current = undefined;
    // The run's spans leave before its report (the caller's answer may close the trace).
    await runtime.telemetry.flush();
    // One turn of the event loop first: a file operation the run awaited last is still listed as
    // active while its promise's continuations run. The process is restored before the report
    // goes out, so the report carries the verdict: one message ends the run (the host wakes
    // once, and the worker is free for the next run as soon as the report is in). Restoring
    // costs a few microseconds unless the run changed the environment (see worker-state.ts).
    await new Promise((resolveTurn) => setImmediate(resolveTurn));
    const leftovers = idleState ? restoreWorkerState(idleState) : ["no idle state"];
    if (returned && leftovers.length > 0) {
      adapters.warn(`[steamharness] run ${run.runId} (${run.entrypointId}) left ${leftovers.join(", ")} running: its worker serves no further run`);
    }
    await adapters.send({ type: "report", report, reusable: returned && leftovers.length === 0 });
    if (exitAfterRun) await exit();
    // The next run's cancel switch is made while the worker is idle (see takeController).
    else spareController ??= readyController();
  }

  async function exit(): Promise<void> {
    // A host closing while this run is in progress lets it finish first (it kills after a grace).
    if (current) {
      exitAfterRun = true;
      return;
    }
    await Promise.all([storage?.then((store) => store.close()).catch(() => undefined), tenantStorages.close(), configurations?.close(), tenants?.close(), adapters.runtime.then((opened) => opened.shutdown())]);
    adapters.exitProcess(0);
  }

  return {
    /** Handles one protocol message of the host. */
    handle(message: ParentMessage): void {
      // The host's pool sends the use case's WorkerConfig (app/workflow-runs/worker-pool.ts).
      if (message.type === "init") void init(message.config as HostWorkerConfig<Dirs>);
      else if (message.type === "run") void serve(message.run);
      else if (message.type === "exit") void exit();
      else current?.bridge.handle(message);
    },
    /** Cancels the run in progress, if any (the host went away). */
    abort(): void {
      current?.controller.abort();
    },
  };
}
