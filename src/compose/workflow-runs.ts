import type { WorkflowRunPorts } from "../ports/workflow-runs.js";
import { createProjectRunner, type ProjectRunner, type ProjectRunnerOptions } from "../app/workflow-runs/project-runner.js";
import { parseRelatedProjects, tenantDataDirs, type FileParamHostOptions, type PrecheckedProjectRunner } from "../app/workflow-runs/host-options.js";
import { resolveDataDirs, type DataDirDefaults, type DataDirOptions, type WorkflowDataDirs } from "../adapters/driven/worker-process/data-dirs.js";
import type { ProjectFiles } from "../ports/project-files.js";
import type { WorkflowRunStores } from "../ports/workflow-run-stores.js";
import { createProjectFiles } from "../adapters/driven/worker-process/project-files.js";
import { createWorkflowWorkers, resolveWorkerEntry } from "../adapters/driven/worker-process/worker-process.js";
import { agentStoreDirFor } from "../adapters/driven/sqlite/sessions/session-file-names.js";
import { readSavedAuth, resolveServerAuth, workerEnvironment } from "../adapters/driven/config-server-client/server-auth.js";
import { createSystemClock } from "../adapters/driven/system/clock.js";
import { credentialOf } from "./configuration-store.js";

// ARCH-7: the workflow-run use case (src/app/workflow-runs) runs on three ports; this is where
// they are wired. The stores load their drivers on first use, so a command that only lists a
// project's structure never loads SQLite.

/**
 * The project's files on this machine (the worker-process adapter's).
 *
 * @example
 * const location = await projectFiles.locate("/srv/project");
 */
export const projectFiles: ProjectFiles = createProjectFiles();

/**
 * The stores beside the runs: SQLite run indexes and values, the configuration store (local or
 * the configuration server's), the tenant key store (SQLite or PostgreSQL).
 *
 * @example
 * const index = await workflowRunStores.openRunIndex("/srv/project/.workflow/agents");
 */
export const workflowRunStores: WorkflowRunStores = {
  clock: createSystemClock(),
  async openRunIndex(sessionFolder) {
    const { createSqliteRunRetention } = await import("../adapters/driven/sqlite/run-retention/sqlite-run-retention.js");
    return createSqliteRunRetention({ agentStoreDir: sessionFolder });
  },
  async loadValueStores() {
    const { createSqliteStorage } = await import("../adapters/driven/sqlite/store/sqlite-storage.js");
    return (directory) => createSqliteStorage({ directory });
  },
  async openConfigurations({ dataDir, env }) {
    const { openProjectConfigurationStore } = await import("./configuration-store.js");
    return openProjectConfigurationStore({ dataDir, authDir: null, env: { ...env } });
  },
  async openKeyStore(location) {
    const { openGatewayKeyStore } = await import("./api-keys.js");
    return openGatewayKeyStore(location);
  },
  async serverLogin(processEnv, projectEnv, authDir) {
    const auth = resolveServerAuth({ ...processEnv }, projectEnv, await readSavedAuth(authDir));
    if (auth.serverUrl) credentialOf(auth);
    return { auth, workerEnv: workerEnvironment({ ...processEnv }, projectEnv, auth) };
  },
};

/**
 * Every port of the workflow-run use case, wired for this machine: forked worker processes
 * (the worker's main is ./workflow-worker.ts, built as dist/workflow-worker.js), the project's
 * files and the stores.
 *
 * @example
 * const runner = await createProjectRunner({ projectDir, ports: workflowRunPorts() });
 */
export function workflowRunPorts(): WorkflowRunPorts {
  return (ports ??= { workers: createWorkflowWorkers(resolveWorkerEntry(import.meta.url)), files: projectFiles, stores: workflowRunStores });
}
let ports: WorkflowRunPorts | undefined;

/**
 * What a host's data dirs default by on this machine: the user's home, and the SQLite session
 * store's rule for where a project's agent sessions live.
 *
 * @example
 * const dirs = resolveDataDirs({ dataDir: "/srv/sh" }, dataDirDefaults());
 */
export function dataDirDefaults(): DataDirDefaults {
  return { home: projectFiles.homeDir(), agentStoreDirFor };
}

/**
 * Opens a workflow project for serving on this machine's ports: checks the host
 * ({@link precheckProjectRunner}, unless `prechecked` is given) and creates the app's runner.
 *
 * @example
 * const runner = await openProjectRunner({ projectDir: "/abs/project", workers: 2 });
 */
export async function openProjectRunner(options: Omit<PrecheckOptions, "ports"> & Omit<ProjectRunnerOptions, "ports" | "prechecked"> & Partial<Pick<ProjectRunnerOptions, "prechecked">>): Promise<ProjectRunner> {
  const ports = workflowRunPorts();
  return createProjectRunner({ ...options, ports, prechecked: options.prechecked ?? (await precheckProjectRunner({ ...options, ports })) });
}

/**
 * The cheap, fail-fast part of opening a host (no TypeBox, no worker): the manifest, the data
 * dirs (absolute), the related projects (confirmed on both sides, CFG-5) and the file-param
 * policy (`allowedFileRoots`, SEC-5: absolute existing directories; by default the project and
 * the working directory, see `defaultFileRoots`, none for a `multiTenant` host; every data dir
 * and `serverState` path denied, TEN-2). Throws what `createProjectRunner` would.
 *
 * @example
 * const checked = await precheckProjectRunner({ projectDir: "/abs/project", allowedFileRoots: ["/srv/docs"], ports });
 */
export async function precheckProjectRunner(options: PrecheckOptions): Promise<PrecheckedProjectRunner & { dirs: WorkflowDataDirs }> {
  const { files, stores } = options.ports;
  const location = await files.locate(options.projectDir);
  const dirs = resolveDataDirs(options.dirs ?? {}, { home: files.homeDir(), agentStoreDirFor }, location.directory);
  const relatedProjects = await parseRelatedProjects(options.relatedProjects ?? [], location.manifest, files);
  const state = [...Object.values(dirs), ...(options.serverState ?? [])];
  const filePolicy = await files.filePolicy(options.allowedFileRoots, location.directory, state, { multiTenant: options.multiTenant === true });
  // SES-12: a run's sessions are indexed in its session folder, opened once the folder exists
  // (a project whose runs have no agents gets no `.workflow/agents` from it).
  const runIndexOf = (dataTenant?: string) => {
    const folder = (dataTenant === undefined ? dirs : tenantDataDirs(dirs, dataTenant)).agentStoreDir;
    return () => (files.exists(folder) ? stores.openRunIndex(folder) : undefined);
  };
  return { location, dirs, relatedProjects, filePolicy, runIndexOf };
}

/** Options of {@link precheckProjectRunner}: the project, its command-line dirs, related projects and file roots. */
export interface PrecheckOptions extends FileParamHostOptions {
  projectDir: string;
  dirs?: DataDirOptions;
  relatedProjects?: readonly string[];
  ports: Pick<WorkflowRunPorts, "files" | "stores">;
}
