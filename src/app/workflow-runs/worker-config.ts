import type { RelatedProject } from "../../domain/workflow/run-context.js";
import type { WorkerInit, WorkerKeyStoreLocation } from "../../domain/workflow/worker-protocol.js";
import type { RunDataDirs } from "../../ports/project-files.js";

/** How a worker is configured, sent once right after it starts (the `init` message of domain/workflow/worker-protocol.ts). */
export interface WorkerConfig extends WorkerInit {
  /** The host's whole layout (adapters/driven/worker-process/data-dirs.ts `WorkflowDataDirs`), or a tenant's. */
  dirs: RunDataDirs;
  relatedProjects: RelatedProject[];
  /** Open the stores at start (warm pool) instead of at the first run. */
  openStorage: boolean;
  /**
   * BUD-4 (`mcp --http --keys`): the key store whose ledger and token windows hold the limits of
   * the runs' tenants (`WorkerRunRequest.tenantLimits`); opened at the first such run.
   */
  tenantStore?: WorkerKeyStoreLocation;
}
