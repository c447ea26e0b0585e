/**
 * API keys and tenant limits of the gateway (BUD-4): a key's tenant is admitted against its
 * request rate, token rate, concurrency and budget, all kept in the shared key store, so they hold
 * across every gateway host on the store.
 *
 * - Verified keys are cached for `cacheMs` (default 2 s): a key revoked on any host is refused by
 *   every host within that bound. Unknown keys are not cached (a key added on another host works at
 *   once).
 * - Request rate: one count per request in the tenant's one-minute window, refused past the limit.
 * - Token rate: a request is refused while the tenant's window already holds its token limit; the
 *   tokens a request used are charged when it ends (requests running when the window fills may
 *   pass it by what they use).
 * - Concurrency: a slot leased for `slotTtlMs` (default 30 s), renewed every third of it while the
 *   request runs and freed when it ends; a host that dies frees its slots within `slotTtlMs`.
 */
import { randomUUID } from "node:crypto";
import { createAgentNode, type AgentNode, type AgentNodeOptions } from "../../../app/agent-node/create-agent-node.js";
import type { ApiKeyIdentity, ApiKeyStore, ApiLimitOutcome, ApiTenant } from "../../../ports/api-keys.js";
import type { BudgetLedger } from "../../../ports/budget-ledger.js";
import { GatewayHttpError } from "./gateway-http.js";

/** Options of {@link createGatewayTenants}. */
export interface GatewayTenantsOptions {
  keys: ApiKeyStore;
  /** The ledger tenant budgets are read from (the runs reserve in it). */
  budgets: BudgetLedger;
  /** How long a verified key is trusted without asking the store again (the revocation bound). */
  cacheMs: number;
  /** How long a concurrency slot is held without renewal (a dead host's slots free themselves after it). */
  slotTtlMs: number;
  now: () => number;
}

/** An admitted request: call `finish` once it ended. */
export interface GatewayAdmission {
  tenant: ApiTenant;
  /** Charges the tokens the request used and frees its concurrency slot; idempotent. */
  finish(tokens: number): Promise<void>;
}

const MAX_CACHED = 10_000;

const limited = (kind: string, outcome: Extract<ApiLimitOutcome, { ok: false }>, type: string): GatewayHttpError => {
  const wait = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
  return new GatewayHttpError(429, `Rate limit reached for ${kind}: try again in ${wait} s.`, { type, code: "rate_limit_exceeded", headers: { "retry-after": String(wait) } });
};

/** The limits of a tenant budget in the ledger's terms, or null without a budget. */
export function tenantBudgetLimit(tenant: ApiTenant): { tokens?: number; costUsd?: number; period?: "day" | "month" } | null {
  if (tenant.budgetTokens === undefined && tenant.budgetUsd === undefined) return null;
  return {
    ...(tenant.budgetTokens === undefined ? {} : { tokens: tenant.budgetTokens }),
    ...(tenant.budgetUsd === undefined ? {} : { costUsd: tenant.budgetUsd }),
    ...(tenant.budgetPeriod === undefined ? {} : { period: tenant.budgetPeriod }),
  };
}

/**
 * Key verification (cached) and tenant admission of one gateway.
 *
 * @example
 * const tenants = createGatewayTenants({ keys, budgets, cacheMs: 2000, slotTtlMs: 30_000, now: Date.now });
 * const identity = await tenants.identify(secret);
 */
export function createGatewayTenants(options: GatewayTenantsOptions) {
  const { keys, now } = options;
  const cache = new Map<string, { identity: ApiKeyIdentity; until: number }>();
  return {
    /** The key's identity, or null when the store does not know it (or it was revoked). */
    async identify(secret: string): Promise<ApiKeyIdentity | null> {
      const at = now();
      const cached = cache.get(secret);
      if (cached && cached.until > at) return cached.identity;
      cache.delete(secret);
      const identity = await keys.verify(secret);
      if (identity) {
        if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
        cache.set(secret, { identity, until: at + options.cacheMs });
      }
      return identity;
    },
    /**
     * Admits a request of `tenant`, or throws its 429: `rate_limit_exceeded` (request rate, token
     * rate, concurrency; with `Retry-After`) or `insufficient_quota` (the tenant budget is spent).
     */
    async admit(tenant: ApiTenant): Promise<GatewayAdmission> {
      const at = now();
      const budget = tenantBudgetLimit(tenant);
      if (budget) {
        const state = await options.budgets.read({ scope: "tenant", id: tenant.id, ...(budget.period ? { period: budget.period } : {}) }, at);
        const tokensLeft = budget.tokens === undefined || state.spent.tokens + state.reserved.tokens < budget.tokens + state.granted.tokens;
        const moneyLeft = budget.costUsd === undefined || state.spent.costMicros + state.reserved.costMicros < Math.round(budget.costUsd * 1e6) + state.granted.costMicros;
        if (!tokensLeft || !moneyLeft) {
          throw new GatewayHttpError(429, `You exceeded the ${budget.period ? `${budget.period}ly ` : ""}budget of tenant '${tenant.id}'.`, { type: "insufficient_quota", code: "insufficient_quota" });
        }
      }
      if (tenant.tokensPerMinute !== undefined) {
        const outcome = await keys.take(tenant.id, "tokens", 0, tenant.tokensPerMinute, at);
        if (!outcome.ok) throw limited("tokens per minute", outcome, "tokens");
      }
      if (tenant.requestsPerMinute !== undefined) {
        const outcome = await keys.take(tenant.id, "requests", 1, tenant.requestsPerMinute, at);
        if (!outcome.ok) throw limited("requests per minute", outcome, "requests");
      }
      let slot: string | null = null;
      let renewal: NodeJS.Timeout | undefined;
      if (tenant.concurrency !== undefined) {
        const id = `slot_${randomUUID()}`;
        const outcome = await keys.acquire(tenant.id, id, tenant.concurrency, at, options.slotTtlMs);
        if (!outcome.ok) throw limited("concurrent requests", outcome, "requests");
        slot = id;
        renewal = setInterval(() => void keys.renew(id, now(), options.slotTtlMs).catch(() => {}), Math.max(1, Math.floor(options.slotTtlMs / 3)));
        renewal.unref();
      }
      let finished: Promise<void> | null = null;
      return {
        tenant,
        finish(tokens) {
          finished ??= (async () => {
            clearInterval(renewal);
            // A store fault here must not fail the response that already ended: the slot then expires.
            if (slot !== null) await keys.release(slot).catch(() => {});
            if (tenant.tokensPerMinute !== undefined && tokens > 0) await keys.charge(tenant.id, "tokens", tokens, now()).catch(() => {});
          })();
          return finished;
        },
      };
    },
  };
}

/** Tenant nodes kept (one per tenant and budget; the least recently used is dropped first). */
const MAX_TENANT_NODES = 256;

/**
 * The node of a tenant's runs (BUD-4): the agent with the tenant's budget added to its own
 * (`tenant` scope, `tenantId` the key's tenant), cached per tenant and budget; the plain node
 * for a tenant without a budget.
 *
 * @example
 * const nodeOf = tenantNodes(node, nodeOptions, ledger);
 * const node = nodeOf(identity.tenant);
 */
export function tenantNodes(base: AgentNode, nodeOptions: AgentNodeOptions | undefined, ledger: BudgetLedger) {
  const nodes = new Map<string, AgentNode>();
  return (tenant: ApiTenant): AgentNode => {
    const limit = tenantBudgetLimit(tenant);
    if (!limit || !nodeOptions) return base;
    const key = JSON.stringify([tenant.id, limit]);
    let node = nodes.get(key);
    if (node) nodes.delete(key);
    else {
      const own = nodeOptions.budget ?? {};
      // A run reserves all its budgets in one ledger: the gateway's tenant ledger, which admission reads too.
      node = createAgentNode({ ...nodeOptions, budget: { ...own, limits: [...(own.limits ?? []), { scope: "tenant", id: tenant.id, ...limit }], tenantId: tenant.id, ledger } });
      if (nodes.size >= MAX_TENANT_NODES) nodes.delete(nodes.keys().next().value!);
    }
    nodes.set(key, node);
    return node;
  };
}

/** The admission engine returned by {@link createGatewayTenants}. */
export type GatewayTenants = ReturnType<typeof createGatewayTenants>;
