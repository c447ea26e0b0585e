import type { ProjectFiles } from "../../ports/project-files.js";
import type { WorkflowRunStores } from "../../ports/workflow-run-stores.js";
import type { WorkflowWorkers } from "../../ports/workflow-workers.js";

/**
 * ARCH-7: the ports the workflow-run use case runs on, handed in by the composition root
 * (compose/workflow-runs.ts): worker processes, the project's files and the stores beside the runs.
 */
export interface WorkflowRunPorts {
  workers: WorkflowWorkers;
  files: ProjectFiles;
  stores: WorkflowRunStores;
}
