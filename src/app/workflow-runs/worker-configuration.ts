/**
 * WF-2 / CFG-2: the project configuration of a worker's runs. Every run takes its
 * `ProjectConfigurationSnapshot` at its start from the configuration store `steamharness config`,
 * `chat` and the gateway use — the local store of the data dir (`<data-dir>/configurations.sqlite`),
 * or the configuration server when the host resolved a server login into the worker's
 * environment (CFG-4; system entries are then re-authenticated with the account token) — and
 * keeps it with the run (`snapshotForRun`), so an agent node inside the workflow picks its model
 * from `STEAMHARNESS_AGENT_MODELS` like a conversation turn does. A new run of a worker pool on
 * the local store gets its snapshot from the host instead, which took it as it dispatched the run
 * and saves it (`given`, host-run-snapshots.ts). Keys are resolved from the worker's environment
 * (the process environment and the project's `.env`) when a turn starts, never saved.
 */
import { wrapAdapterError } from "../../domain/errors.js";
import { snapshotForRun } from "../../domain/configuration/run-snapshot.js";
import { receivedProjectConfigurationSnapshot, type ProjectConfigurationSnapshot } from "../../domain/configuration/snapshot.js";
import type { NodeRunConfiguration } from "../../domain/node-context.js";
import type { Storage } from "../../ports/storage.js";
import type { WorkflowConfigurationChoice as ConfigurationStoreChoice, WorkflowRunStores } from "../../ports/workflow-run-stores.js";

/** The configuration side of a worker: one store opened on first use, a snapshot per run. */
export interface WorkerConfigurations {
  /** The run's configuration (its snapshot taken now, or the one kept for this run id; none is looked for a `newRun`). */
  forRun(storage: Storage, projectId: string, runId: string, newRun?: boolean): Promise<NodeRunConfiguration>;
  /** The run's configuration around the snapshot its host took and saves (local store only: no account key). */
  given(snapshot: ProjectConfigurationSnapshot): NodeRunConfiguration;
  /** Opens the store ahead of the first run (a warm worker); never rejects (the run reports it). */
  preload(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens (lazily) the configuration store of `dataDir` for a worker's runs.
 *
 * @example
 * const configurations = createWorkerConfigurations("/home/me/.steamharness", stores);
 * const { snapshot } = await configurations.forRun(storage, projectId, runId);
 */
export function createWorkerConfigurations(dataDir: string, stores: Pick<WorkflowRunStores, "clock" | "openConfigurations">, env: Readonly<Record<string, string | undefined>> = process.env): WorkerConfigurations {
  let store: Promise<ConfigurationStoreChoice> | undefined;
  const { clock } = stores;
  const open = () =>
    (store ??= stores
      .openConfigurations({ dataDir, env })
      .catch((error: unknown) => {
        // A store that could not open is tried again by the next run.
        store = undefined;
        throw error;
      }));
  return {
    async forRun(storage, projectId, runId, newRun = false) {
      let snapshot;
      let choice: ConfigurationStoreChoice | undefined;
      try {
        choice = await open();
        snapshot = await snapshotForRun({ store: choice.store, values: storage.values, projectId, runId, clock, ...(newRun ? { newRun } : {}) });
      } catch (error) {
        // SES-5: a run never goes on without the configuration it should have started with.
        throw wrapAdapterError("configuration", `taking the run's configuration snapshot from ${choice?.location === "server" ? choice.auth.serverUrl : dataDir} failed`, error);
      }
      const systemApiKey = choice.systemApiKey;
      return { snapshot, resolveApiKey: (ref) => env[ref], ...(systemApiKey === undefined ? {} : { resolveSystemApiKey: () => systemApiKey }) };
    },
    given(snapshot) {
      return { snapshot: receivedProjectConfigurationSnapshot(snapshot), resolveApiKey: (ref) => env[ref] };
    },
    async preload() {
      await open().catch(() => undefined);
    },
    async close() {
      await store?.then((opened) => opened.store.close?.()).catch(() => undefined);
    },
  };
}
