import type { ProjectFiles } from "../../ports/project-files.js";
import type { WorkflowRunStores } from "../../ports/workflow-run-stores.js";
import type { WorkflowWorkers } from "../../ports/workflow-workers.js";

/**
 * ARCH-7: the ports the workflow-run use case runs on, handed in by the composition root
 * (compose/workflow-runs.ts): worker processes, the project's files, the stores beside the runs
 * and where their agent sessions live.
 */
export interface WorkflowRunPorts {
  workers: WorkflowWorkers;
  files: ProjectFiles;
  stores: WorkflowRunStores;
  /** Where a project's agent sessions live: `given` resolved, else the project's own folder (SES-10; the session store's rule). */
  agentStoreDirFor(projectDir: string, given?: string): string;
}
