import { tenantsFolder } from "../tenants/tenant-segment.js";
import { DEFAULT_RUN_RETENTION_MS } from "./run-retention.js";
import type { WorkflowRunPorts } from "../../ports/workflow-runs.js";

/** Options of {@link pruneProjectRuns}. */
export interface PruneProjectRunsOptions {
  projectDir: string;
  /** Where the project and its session folders are found, and their run indexes opened. */
  ports: Pick<WorkflowRunPorts, "files" | "stores">;
  /** The session folder (absolute); the project's own (`<projectDir>/.workflow/agents`) by default. */
  sessionFolder?: string;
  /** Finished runs older than this go ({@link DEFAULT_RUN_RETENTION_MS} by default); runs due by their own retention go too. */
  olderThanMs?: number;
  /** Runs per batch (default 100). */
  batch?: number;
  now?: number;
}

/** The runs whose sessions a prune removed, and those kept because a live owner holds a session. */
export interface PruneProjectRunsResult {
  removed: string[];
  deferred: string[];
}

/**
 * SES-12, `steamharness runs prune`: removes the agent sessions of a workflow project's finished
 * runs older than `olderThanMs`, and of runs due by their own retention (an MCP task's TTL, a
 * crashed run's), batch after batch until none is due — in the folder and in each tenant's
 * folder under it (TEN-3). Runs waiting for an answer are kept, and
 * so is a run one of whose sessions is held right now. A folder without an index has nothing to prune.
 *
 * @example
 * const { removed } = await pruneProjectRuns({ projectDir: "/srv/project", olderThanMs: 86_400_000, ports: await services.workflowRunPorts() });
 */
export async function pruneProjectRuns(options: PruneProjectRunsOptions): Promise<PruneProjectRunsResult> {
  const { files, stores } = options.ports;
  const location = await files.locate(options.projectDir);
  const { sessionFolder } = files.dataFolders(options.sessionFolder === undefined ? {} : { sessionFolder: options.sessionFolder }, location.directory);
  const outcome: PruneProjectRunsResult = { removed: [], deferred: [] };
  if (!files.exists(sessionFolder)) return outcome;
  // TEN-3: each tenant of `mcp --http` keeps its runs in its own folder, with its own index.
  const tenantDirs = files.subfolders(tenantsFolder(sessionFolder));
  const now = options.now ?? stores.clock.now();
  const request = { projectId: location.manifest.id, now, limit: options.batch ?? 100, finishedBefore: now - (options.olderThanMs ?? DEFAULT_RUN_RETENTION_MS) };
  for (const folder of [sessionFolder, ...tenantDirs]) {
    const retention = await stores.openRunIndex(folder);
    try {
      for (;;) {
        const batch = await retention.prune(request);
        outcome.removed.push(...batch.removed);
        outcome.deferred.push(...batch.deferred);
        // A batch that removed nothing was all in use (put off): the rest waits for a later prune.
        if (!batch.more || batch.removed.length === 0) break;
      }
    } finally {
      retention.close();
    }
  }
  return { removed: outcome.removed, deferred: [...new Set(outcome.deferred)] };
}
