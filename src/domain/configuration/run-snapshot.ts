/**
 * Every run records its `ProjectConfigurationSnapshot` (CFG-2): the first time a run id asks,
 * the snapshot is taken from the configuration store and saved with the run in the project's
 * persistent values; every later ask for the same run id — a resume after a pause, a restart in
 * another process — gets the saved snapshot back, whatever the configuration became since.
 */
import type { AgentConfigurationSnapshot } from "../agent/model-selection.js";
import type { NodeContext } from "../node-context.js";
import type { JsonValue } from "../json.js";
import type { Clock } from "../../ports/clock.js";
import type { PersistentValueStore } from "../../ports/persistent-value-store.js";
import type { ProjectConfigurationStore } from "../../ports/project-configuration-store.js";
import { agentConfigurationFromSnapshot, type ApiKeyResolver, type SystemApiKeyResolver } from "./agent-configuration.js";
import { parseProjectConfigurationSnapshot, takeProjectConfigurationSnapshot, type ProjectConfigurationSnapshot } from "./snapshot.js";

/** The persistent-value name prefix under which run snapshots are kept (never exposed to models). */
export const RUN_SNAPSHOT_PREFIX = "steamharness.configuration-snapshot.";

/** Options of {@link snapshotForRun}. */
export interface RunSnapshotOptions {
  store: Pick<ProjectConfigurationStore, "read">;
  /** Where the run's snapshot is kept (a run's `context.storage.values`). */
  values: PersistentValueStore;
  projectId: string;
  runId: string;
  clock: Clock;
  /** Snapshot this configuration instead of the current one. */
  configurationId?: string;
  /**
   * The run id was made for this run, so no snapshot can be saved under it yet: the lookup is
   * skipped and a new snapshot is taken and saved (a worker's run, MCP-9: one read less on every
   * call). Leave it unset for a run id that may have run before (a resumed or answered run).
   */
  newRun?: boolean;
}

/**
 * The run's snapshot: the saved one when the run has one, else a new one, saved before it is
 * returned. A saved snapshot that does not parse fails with `input_validation` (never silently
 * replaced by the current configuration).
 *
 * @example
 * const snapshot = await snapshotForRun({ store, values: context.storage.values, projectId, runId: context.runId, clock });
 */
export async function snapshotForRun(options: RunSnapshotOptions): Promise<ProjectConfigurationSnapshot> {
  const name = `${RUN_SNAPSHOT_PREFIX}${options.runId}`;
  const saved = options.newRun ? null : await options.values.get(options.projectId, name);
  if (saved !== null) return parseProjectConfigurationSnapshot(saved);
  const snapshot = await takeProjectConfigurationSnapshot(options.store, options.projectId, {
    clock: options.clock,
    ...(options.configurationId === undefined ? {} : { configurationId: options.configurationId }),
  });
  await saveRunSnapshot(options.values, options.projectId, options.runId, snapshot);
  return snapshot;
}

/**
 * Keeps `snapshot` with the run `runId` (CFG-2), where {@link snapshotForRun} looks for it — for a
 * host that took a run's snapshot itself (a worker pool's host, host-run-snapshots.ts).
 *
 * @example
 * await saveRunSnapshot(storage.values, projectId, runId, snapshot);
 */
export async function saveRunSnapshot(values: PersistentValueStore, projectId: string, runId: string, snapshot: ProjectConfigurationSnapshot): Promise<void> {
  // The snapshot is plain JSON already (built from JSON copies): the store encodes it once.
  await values.set(projectId, `${RUN_SNAPSHOT_PREFIX}${runId}`, snapshot as unknown as JsonValue);
}

/** Options of {@link createAgentConfigurationLoader}. */
export interface AgentConfigurationLoaderOptions {
  store: Pick<ProjectConfigurationStore, "read">;
  clock: Clock;
  /** Resolves `apiKeyRef`s to keys when a run (re)starts; keys are never saved. */
  resolveApiKey?: ApiKeyResolver;
  /** The current account's key for system entries (CFG-4); see `SystemApiKeyResolver`. */
  resolveSystemApiKey?: SystemApiKeyResolver;
  configurationId?: string;
}

/**
 * The agent's `configuration` option backed by the configuration store: each run (by
 * `context.runId`) gets the snapshot it started with, in the agent's shape.
 *
 * @example
 * const node = createAgentNode({ configuration: createAgentConfigurationLoader({ store, clock, resolveApiKey: (ref) => secrets[ref] }) });
 */
export function createAgentConfigurationLoader(options: AgentConfigurationLoaderOptions): (context: NodeContext) => Promise<AgentConfigurationSnapshot> {
  return async (context) => {
    const snapshot = await snapshotForRun({
      store: options.store,
      values: context.storage.values,
      projectId: context.projectId,
      runId: context.runId,
      clock: options.clock,
      ...(options.configurationId === undefined ? {} : { configurationId: options.configurationId }),
    });
    return agentConfigurationFromSnapshot(snapshot, options.resolveApiKey, options.resolveSystemApiKey);
  };
}
