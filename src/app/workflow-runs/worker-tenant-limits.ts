/**
 * BUD-4: the key store's limits on the tenants of a worker's runs (`mcp --http --keys`). The host
 * admits a `tools/call` against the key's tenant and sends the tenant's budget and token rate
 * with the run; the worker opens the key store itself (its SQLite file or PostgreSQL schema, once,
 * at the first such run) so that every model call of the run's agents reserves the tenant's
 * budget in the very ledger the admission reads — across every host on the store — and charges
 * its settled tokens to the tenant's token window, which the next admission checks.
 */
import { SteamharnessError } from "../../domain/errors.js";
import type { NodeTenantLimits } from "../../domain/node-context.js";
import type { WorkerKeyStoreLocation as GatewayKeyStoreLocation, WorkerTenantLimits } from "../../domain/workflow/worker-protocol.js";
import type { WorkflowRunStores } from "../../ports/workflow-run-stores.js";

type GatewayKeyStore = Awaited<ReturnType<WorkflowRunStores["openKeyStore"]>>;

/** The tenant limits of one worker: {@link WorkerTenants.forRun} per run, {@link WorkerTenants.close} at exit. */
export interface WorkerTenants {
  /**
   * The context's `tenantLimits` of a run for `tenant`, or undefined when the host sent none (or
   * none that limits anything). Rejects with `storage_failure` when the key store does not open:
   * a run the host capped never runs uncapped.
   */
  forRun(tenant: string | undefined, limits: WorkerTenantLimits | undefined): Promise<NodeTenantLimits | undefined>;
  /** Closes the key store if it was opened. */
  close(): Promise<void>;
}

/**
 * The tenant limits of the worker whose host's key store is `location` (none without `--keys`).
 *
 * @example
 * const tenants = createWorkerTenants({ directory: "/srv/sh/gateway" }, stores);
 * const tenantLimits = await tenants.forRun("key:acme", { budgetTokens: 1000, keyTenantId: "acme" });
 */
export function createWorkerTenants(location: GatewayKeyStoreLocation | undefined, stores: Pick<WorkflowRunStores, "openKeyStore">): WorkerTenants {
  let store: Promise<GatewayKeyStore> | undefined;
  const open = (where: GatewayKeyStoreLocation): Promise<GatewayKeyStore> =>
    (store ??= stores
      .openKeyStore(where)
      .catch((error: unknown) => {
        store = undefined;
        throw new SteamharnessError("storage_failure", `[steamharness] [workflow] cannot open the key store of the run's tenant: ${(error as Error)?.message ?? String(error)}`, { cause: error });
      }));
  return {
    async forRun(tenant, limits) {
      if (tenant === undefined || !limits) return undefined;
      const hasBudget = limits.budgetTokens !== undefined || limits.budgetUsd !== undefined;
      const rated = limits.tokensPerMinute !== undefined;
      if (!hasBudget && !rated) return undefined;
      if (!location) throw new SteamharnessError("storage_failure", "[steamharness] [workflow] the run names its tenant's limits, but this worker was given no key store");
      const opened = await open(location);
      // The key store's own id of the tenant: its ledger and windows are the ones admission reads.
      const keyTenant = limits.keyTenantId;
      const budget = {
        ...(limits.budgetTokens === undefined ? {} : { tokens: limits.budgetTokens }),
        ...(limits.budgetUsd === undefined ? {} : { costUsd: limits.budgetUsd }),
        ...(limits.budgetPeriod === undefined ? {} : { period: limits.budgetPeriod }),
      };
      return {
        tenantId: keyTenant,
        ledger: opened.budgets,
        ...(hasBudget ? { budget } : {}),
        // A store fault must not fail a call that already ran: the window then misses its tokens.
        ...(rated ? { onTokens: (tokens: number, at: number) => opened.keys.charge(keyTenant, "tokens", tokens, at).catch(() => undefined) } : {}),
      };
    },
    async close() {
      const opened = await store?.catch(() => undefined);
      await opened?.close().catch(() => undefined);
    },
  };
}
