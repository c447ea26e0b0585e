/**
 * The gateway's side of tenant admission (BUD-4): the surface-neutral engine of
 * src/app/tenants (key cache, rate windows, slots, budget) with its refusals answered as the
 * OpenAI-shaped 429s of the gateway, plus the agent node of each tenant's budget.
 */
import { createAgentNode, type AgentNode, type AgentNodeOptions } from "../../../app/agent-node/create-agent-node.js";
import { createTenantAdmission, TenantAdmissionError, tenantBudgetLimit, type TenantAdmission, type TenantAdmissionOptions } from "../../../app/tenants/tenant-admission.js";
import type { ApiTenant } from "../../../ports/api-keys.js";
import type { BudgetLedger } from "../../../ports/budget-ledger.js";
import type { Principal } from "../../../domain/principal.js";
import { GatewayHttpError } from "./gateway-http.js";

/** Options of {@link createGatewayTenants}: those of the shared admission engine. */
export type GatewayTenantsOptions = TenantAdmissionOptions;
/** An admitted request: call `finish` once it ended. */
export type GatewayAdmission = TenantAdmission;

/** The gateway's 429 of a refused admission: `rate_limit_exceeded` with `Retry-After`, or `insufficient_quota`. */
function gatewayRefusal(error: TenantAdmissionError): GatewayHttpError {
  return new GatewayHttpError(429, error.reason, { ...error.wire, ...(error.kind === "budget" ? {} : { headers: { "retry-after": String(error.retryAfterSeconds) } }) });
}

/**
 * Key verification (cached) and tenant admission of one gateway; `admit` throws the gateway's 429.
 *
 * @example
 * const tenants = createGatewayTenants({ keys, budgets, cacheMs: 2000, slotTtlMs: 30_000, now: Date.now });
 * const identity = await tenants.identify(secret);
 */
export function createGatewayTenants(options: GatewayTenantsOptions) {
  const engine = createTenantAdmission(options);
  return {
    identify: engine.identify,
    /** Admits a request of `tenant`, or throws its 429 (see {@link gatewayRefusal}). */
    async admit(tenant: ApiTenant): Promise<GatewayAdmission> {
      try {
        return await engine.admit(tenant);
      } catch (error) {
        throw error instanceof TenantAdmissionError ? gatewayRefusal(error) : error;
      }
    },
  };
}

/** Tenant nodes kept (one per tenant and budget; the least recently used is dropped first). */
const MAX_TENANT_NODES = 256;

/**
 * The node of a principal's runs (BUD-4): the agent with its tenant's budget (the principal's
 * `limits`) added to its own (`tenant` scope, `tenantId` the key's tenant id), cached per tenant
 * and budget; `undefined` for a principal without a budget (the route's own node serves it).
 * Every route (Responses, Chat Completions, the chat route) takes its node from here.
 *
 * @example
 * const nodeOf = tenantNodes(nodeOptions, ledger);
 * const node = nodeOf(principal) ?? node;
 */
export function tenantNodes(nodeOptions: AgentNodeOptions | undefined, ledger: BudgetLedger) {
  const nodes = new Map<string, AgentNode>();
  return (principal: Principal): AgentNode | undefined => {
    // The tenant id within its source, as admission charges it (`key:acme` → `acme`).
    const id = principal.tenant.slice(principal.source.length + 1);
    const limit = principal.limits ? tenantBudgetLimit({ id, ...principal.limits }) : null;
    if (!limit || !nodeOptions) return undefined;
    const key = JSON.stringify([id, limit]);
    let node = nodes.get(key);
    if (node) nodes.delete(key);
    else {
      const own = nodeOptions.budget ?? {};
      // A run reserves all its budgets in one ledger: the gateway's tenant ledger, which admission reads too.
      node = createAgentNode({ ...nodeOptions, budget: { ...own, limits: [...(own.limits ?? []), { scope: "tenant", id, ...limit }], tenantId: id, ledger } });
      if (nodes.size >= MAX_TENANT_NODES) nodes.delete(nodes.keys().next().value!);
    }
    nodes.set(key, node);
    return node;
  };
}

/** The admission engine returned by {@link createGatewayTenants}. */
export type GatewayTenants = ReturnType<typeof createGatewayTenants>;
