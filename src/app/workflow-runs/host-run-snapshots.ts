/**
 * CFG-2 on the host side of a worker pool: the configuration snapshot of a new run is taken by
 * the host as it dispatches the run and travels to the worker inside the run message — the worker
 * reads no store and commits nothing before the entrypoint starts. The host saves it under the
 * run id only for a run that may run again on its id: one of an entrypoint declared resumable
 * (its task is taken over by another host when its owner dies, TEN-6), saved while the worker
 * runs, and one that pauses (waiting for input or an approval; answered, or continued as a task),
 * saved before the pause is answered; its worker then looks the snapshot up as before. Any other
 * run keeps nothing, so such a call costs no SQLite commit and leaves no row behind (one per
 * call, never pruned, before).
 *
 * The host does this only with the local configuration store (a configuration server's runs keep
 * the worker's path: it re-authenticates system entries with the account token) and only once its
 * stores are open: they open in the background once the pool's first worker has loaded the
 * project (start-up does not share the cores with them), and until then — or when
 * they failed to open — {@link HostRunSnapshots.take} says "not here" and the worker takes the
 * snapshot itself, so nothing ever waits for the host's stores to open.
 *
 * TEN-3: a tenant's run is saved in the tenant's own values store (where its worker looks for it
 * when the run is resumed); the host keeps the most recently used tenants' stores open.
 */
import { wrapAdapterError } from "../../domain/errors.js";
import { saveRunSnapshot } from "../../domain/configuration/run-snapshot.js";
import { takeProjectConfigurationSnapshot, type ProjectConfigurationSnapshot } from "../../domain/configuration/snapshot.js";
import type { PersistentValueStore } from "../../ports/persistent-value-store.js";
import type { ProjectConfigurationStore } from "../../ports/project-configuration-store.js";
import type { WorkflowRunStores } from "../../ports/workflow-run-stores.js";
import { createTenantCache } from "../tenants/tenant-cache.js";

/** Options of {@link createHostRunSnapshots}. */
export interface HostRunSnapshotsOptions {
  /** Where the configuration store and the persistent values are opened (and the snapshots' clock). */
  stores: WorkflowRunStores;
  projectId: string;
  /** The data dir whose `configurations.sqlite` the workers read (their `dirs.dataDir`). */
  dataDir: string;
  /** Where the workers keep persistent values (their `dirs.persistentValueStoreDir`): the snapshots go there. */
  persistentValueStoreDir: string;
  /** `false` leaves every snapshot to the workers (a configuration server, or no worker pool). */
  enabled: boolean;
  /** TEN-3: where a tenant's runs keep persistent values (its `tenants/<segment>` folder). */
  tenantValuesDir?: (tenant: string) => string;
}

/** Tenants whose values stores the host keeps open; the least recently used is closed first. */
const MAX_OPEN_TENANT_STORES = 32;

/** The host's side of new runs' snapshots. */
export interface HostRunSnapshots {
  /** Opens the stores in the background (idempotent; a failure leaves snapshots to the workers). */
  open(): void;
  /**
   * The snapshot of a new run, taken now — or `undefined` when the host's stores are not open
   * (the worker takes it). Rejects like the worker's own taking does (`storage_failure`).
   */
  take(): Promise<ProjectConfigurationSnapshot> | undefined;
  /**
   * Saves `snapshot` under `runId` where the worker would have (the project's persistent values,
   * the tenant's for a tenant's run) — for a run that paused; the SQLite commit happens within
   * this call. Resolves `undefined`, or the error it failed with.
   */
  save(runId: string, snapshot: ProjectConfigurationSnapshot, tenant?: string): Promise<Error | undefined>;
  close(): Promise<void>;
}

interface OpenedStores {
  configurations: Pick<ProjectConfigurationStore, "read" | "close">;
  values: PersistentValueStore;
  /** A values store under `directory` (a tenant's), opened with the same SQLite module. */
  valuesAt(directory: string): { values: PersistentValueStore; close(): Promise<void> };
  close(): Promise<void>;
}

/**
 * The host's run snapshots over the workers' own stores.
 *
 * @example
 * const snapshots = createHostRunSnapshots({ projectId, dataDir: dirs.dataDir, persistentValueStoreDir: dirs.persistentValueStoreDir, enabled: true });
 * snapshots.open();
 * const snapshot = await snapshots.take(); // undefined until the stores are open
 */
export function createHostRunSnapshots(options: HostRunSnapshotsOptions): HostRunSnapshots {
  const { clock } = options.stores;
  let opening: Promise<OpenedStores | undefined> | undefined;
  let opened: OpenedStores | undefined;
  let closed = false;
  /** Tenants' values stores, opened on a tenant's first run (only once the host's stores are open). */
  const tenantStores = createTenantCache((tenant) => opened!.valuesAt(options.tenantValuesDir!(tenant)), MAX_OPEN_TENANT_STORES);
  const openStores = async (): Promise<OpenedStores | undefined> => {
    try {
      const openValues = await options.stores.loadValueStores();
      // No server login is looked for: the host enables this only when none resolved.
      const { store: configurations } = await options.stores.openConfigurations({ dataDir: options.dataDir, env: {} });
      let storage;
      try {
        storage = openValues(options.persistentValueStoreDir);
      } catch (error) {
        await configurations.close?.().catch(() => undefined);
        throw error;
      }
      const stores: OpenedStores = {
        configurations,
        values: storage.values,
        valuesAt: openValues,
        close: async () => {
          await Promise.all([configurations.close?.(), storage!.close()]);
        },
      };
      if (closed) {
        await stores.close();
        return undefined;
      }
      opened = stores;
      return stores;
    } catch {
      // The workers take their snapshots as they did; a store that cannot open is theirs to report.
      return undefined;
    }
  };
  return {
    open() {
      if (options.enabled && !closed) opening ??= openStores();
    },
    take() {
      const stores = opened;
      if (!stores) return undefined;
      return takeProjectConfigurationSnapshot(stores.configurations, options.projectId, { clock }).catch((error: unknown) => {
        // SES-5: a run never goes on without the configuration it should have started with.
        throw wrapAdapterError("configuration", `taking the run's configuration snapshot from ${options.dataDir} failed`, error);
      });
    },
    async save(runId, snapshot, tenant) {
      try {
        if (!opened) throw new Error("the host's stores are closed");
        const values = tenant === undefined || !options.tenantValuesDir ? opened.values : tenantStores.of(tenant).values;
        await saveRunSnapshot(values, options.projectId, runId, snapshot);
        return undefined;
      } catch (error) {
        return wrapAdapterError("configuration", `saving the run's configuration snapshot under ${options.persistentValueStoreDir} failed`, error);
      }
    },
    async close() {
      closed = true;
      const stores = opened ?? (await opening);
      opened = undefined;
      await Promise.all([stores?.close().catch(() => undefined), tenantStores.close()]);
    },
  };
}
