import type { WorkflowRunPorts } from "../ports/workflow-runs.js";
import type { DataDirDefaults } from "../adapters/driven/worker-process/data-dirs.js";
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
export const projectFiles: ProjectFiles = createProjectFiles({ sessionFolderOf: agentStoreDirFor });

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
 * const runner = await openProjectRunner({ projectDir, ports: workflowRunPorts() });
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
 * const dirs = resolveDataDirs({ dataDir: "/srv/sh" }, dataDirDefaults()); // a test's own layout
 */
export function dataDirDefaults(): DataDirDefaults {
  return { home: projectFiles.homeDir(), agentStoreDirFor };
}
