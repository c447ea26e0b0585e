import type { ProjectFiles } from "./project-files.js";
import type { WorkflowRunStores } from "./workflow-run-stores.js";
import type { WorkflowWorkers } from "./workflow-workers.js";

/**
 * ARCH-7: the ports the workflow-run use case (src/app/workflow-runs) runs on, handed in by the composition root
 * (compose/workflow-runs.ts): worker processes, the project's files and the stores beside the runs.
 */
export interface WorkflowRunPorts {
  workers: WorkflowWorkers;
  files: ProjectFiles;
  stores: WorkflowRunStores;
}
