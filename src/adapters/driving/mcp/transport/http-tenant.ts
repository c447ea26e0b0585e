/**
 * Who a verified HTTP request is for (TEN-1): the {@link Principal} the verifiers of
 * http-auth.ts put in `AuthInfo.extra.principal`. Its tenant is what the request's runs queue
 * under in the worker pool (fair turns, `--tenant-concurrency`), charge as the `tenant` budget,
 * and own (tasks, paused runs, MCP sessions):
 *
 * - OAuth: `oauth:<claim>` — the access token's `sub`, or the claim `tenantClaim` names; a token
 *   without it (or without a usable `sub` or `client_id`) is refused, never given its client id;
 * - an API key (`--keys`): `key:<the key's tenant id>`;
 * - the static token: one principal, `token:static`;
 * - no authorization (loopback only) and stdio: no principal, so every call shares one tenant.
 *
 * Kept apart from http-auth.ts so the workflow server reads it without loading jose.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { answererOf, type DecisionAnswerer } from "../../../../domain/agent/decision-answerer.js";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { Principal } from "../../../../domain/principal.js";
import type { ApiTenant, ApiTenantLimits } from "../../../../ports/api-keys.js";

/** The claim naming an OAuth request's tenant when `tenantClaim` is not given. */
export const DEFAULT_TENANT_CLAIM = "sub";

/**
 * The principal of a request's verified auth, or `undefined` for a request without
 * authorization. Auth that carries no principal (a host's own middleware setting `req.auth`)
 * is refused with `unauthorized`: it is never read as a shared or a client-id tenant.
 *
 * @example
 * const principal = principalOfAuth(extra.authInfo); // { tenant: "oauth:user-42", subject: "user-42", … }
 */
export function principalOfAuth(auth: AuthInfo | undefined): Principal | undefined {
  if (!auth) return undefined;
  const principal = auth.extra?.principal as Principal | undefined;
  if (typeof principal?.tenant !== "string") throw new SteamharnessError("unauthorized", "[steamharness] [mcp] the request's authorization names no principal");
  return principal;
}

/**
 * UI-7: who answers through a request — its principal's surface, tenant and subject (never the
 * credential), or `{ surface: "mcp" }` for a request without a principal (stdio, unauthenticated
 * loopback) — answering at `at`.
 *
 * @example
 * answererOfAuth(extra.authInfo, Date.now()) // { surface: "mcp-http", tenant: "key:acme", subject: "k1", at }
 */
export function answererOfAuth(auth: AuthInfo | undefined, at: number): DecisionAnswerer {
  const principal = principalOfAuth(auth);
  return principal ? answererOf(principal, at) : { surface: "mcp", at };
}

/**
 * The tenant of a request's verified auth, or `undefined` for a request without authorization.
 *
 * @example
 * const tenant = tenantOfAuth(extra.authInfo); // "oauth:user-42" for a token whose sub is user-42
 */
export function tenantOfAuth(auth: AuthInfo | undefined): string | undefined {
  return principalOfAuth(auth)?.tenant;
}

/**
 * TEN-3: the tenant whose data namespace a request's runs read and write (their stores, agent
 * sessions, run index and paused runs under `tenants/<segment>` of each data dir): the request's
 * tenant — except the one tenant of a static token, and no tenant without authorization, whose
 * runs keep the host's data dirs as they always did.
 *
 * @example
 * dataTenantOf(tenantOfAuth(extra.authInfo)); // "key:acme" for an API key of tenant acme; undefined for the static token
 */
export function dataTenantOf(tenant: string | undefined): string | undefined {
  return tenant === undefined || tenant.startsWith("token:") ? undefined : tenant;
}

/**
 * The limits a key-store tenant puts on its runs: the budget they reserve and the token rate they
 * charge, and the tenant's id in the key store (`acme` for the principal tenant `key:acme`),
 * which keys the store's ledger and rate windows on every surface sharing it.
 */
export type RunTenantLimits = Pick<ApiTenantLimits, "budgetTokens" | "budgetUsd" | "budgetPeriod" | "tokensPerMinute"> & { keyTenantId: string };

/**
 * BUD-4: the run limits of an API-key request's tenant (`--keys` puts the key's tenant in
 * `AuthInfo.extra.apiTenant`), or `undefined` for other authorization or a tenant without them.
 *
 * @example
 * const limits = tenantLimitsOfAuth(extra.authInfo); // { budgetTokens: 1000, keyTenantId: "acme" } for such a key
 */
export function tenantLimitsOfAuth(auth: AuthInfo | undefined): RunTenantLimits | undefined {
  const tenant = auth?.extra?.apiTenant as ApiTenant | undefined;
  if (!tenant) return undefined;
  const limits = {
    ...(tenant.budgetTokens === undefined ? {} : { budgetTokens: tenant.budgetTokens }),
    ...(tenant.budgetUsd === undefined ? {} : { budgetUsd: tenant.budgetUsd }),
    ...(tenant.budgetPeriod === undefined ? {} : { budgetPeriod: tenant.budgetPeriod }),
    ...(tenant.tokensPerMinute === undefined ? {} : { tokensPerMinute: tenant.tokensPerMinute }),
  };
  return Object.keys(limits).length > 0 ? { ...limits, keyTenantId: tenant.id } : undefined;
}
