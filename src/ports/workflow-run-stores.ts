import type { WorkerKeyStoreLocation } from "../domain/workflow/worker-protocol.js";
import type { ApiKeyStore } from "./api-keys.js";
import type { BudgetLedger } from "./budget-ledger.js";
import type { Clock } from "./clock.js";
import type { PersistentValueStore } from "./persistent-value-store.js";
import type { ProjectConfigurationStore } from "./project-configuration-store.js";

/**
 * ARCH-7: the stores the workflow-run use case (src/app/workflow-runs) opens beside its runs —
 * the session folder's run index (SES-12), a data dir's persistent values (paused runs DX-10,
 * run snapshots CFG-2), the configuration store (CFG-2) and a tenant key store (BUD-4) — and the
 * server login a host resolves (TEN-7). The composition root wires the SQLite, PostgreSQL and
 * configuration-server adapters behind it; every opener is lazy, so a command that never needs
 * a store never loads its driver.
 */
export interface WorkflowRunStores {
  /** The time of the use case's marks and snapshots. */
  readonly clock: Clock;
  /** Opens the run index of a session folder (it must exist); rejects with the driver's error. */
  openRunIndex(sessionFolder: string): Promise<WorkflowRunIndex>;
  /**
   * Loads the persistent values' driver, and resolves its opener: it opens the values kept under
   * a directory (created when missing) at once, and throws the driver's error.
   */
  loadValueStores(): Promise<(directory: string) => { values: PersistentValueStore; close(): Promise<void> }>;
  /**
   * The configuration store of a host or a worker: the configuration server's client when the
   * environment names a login with a URL, else the local store under `dataDir`. Reads no saved
   * login (a worker's host resolved it into `env`). `input_validation` for a URL without a credential.
   */
  openConfigurations(options: { dataDir: string; env: Readonly<Record<string, string | undefined>> }): Promise<WorkflowConfigurationChoice>;
  /** Opens a tenant key store (its keys and its budget ledger); rejects with the driver's error. */
  openKeyStore(location: WorkerKeyStoreLocation): Promise<{ keys: ApiKeyStore; budgets: BudgetLedger; close(): Promise<void> }>;
  /**
   * TEN-7: the configuration-server login a host's runs use (process environment, then the
   * project's `.env`, then the login saved in `authDir`) and the environment its workers get.
   * `input_validation` for a server URL without a credential.
   */
  serverLogin(processEnv: Readonly<Record<string, string | undefined>>, projectEnv: Record<string, string>, authDir: string): Promise<{ auth: WorkflowServerAuth; workerEnv: Record<string, string> }>;
}

/** The configuration store chosen, and where it lives. */
export interface WorkflowConfigurationChoice {
  store: ProjectConfigurationStore;
  location: "local" | "server";
  auth: { serverUrl?: string };
  /** The account's model-call credential for system model entries (server mode only). */
  systemApiKey?: string;
}

/** The configuration-server login of a host, and where it came from. */
export interface WorkflowServerAuth {
  source: "environment" | "project-env" | "saved" | "none";
  serverUrl?: string;
  token?: string;
  adminKey?: string;
  account?: string;
}

/** How a run is marked in the run index (SES-12). */
export interface WorkflowRunMark {
  projectId: string;
  runId: string;
  state: "running" | "paused" | "finished";
  at: number;
  /** When the run's sessions are due for removal; `null`: never. */
  expiresAt: number | null;
}

/** A session folder's index of runs, which prunes the sessions of runs that are due. */
export interface WorkflowRunIndex {
  /** Records a run's state (replacing its earlier mark). Rejects with the driver's error. */
  mark(mark: WorkflowRunMark): Promise<void>;
  /**
   * Removes the sessions of up to `limit` due runs (expired, or finished before `finishedBefore`);
   * a run one of whose sessions is held right now is `deferred`. `more`: due runs are left.
   */
  prune(request: { projectId: string; now: number; limit: number; finishedBefore?: number }): Promise<{ removed: string[]; deferred: string[]; more: boolean }>;
  close(): void;
}
