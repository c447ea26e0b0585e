/**
 * Who a verified HTTP request is for (BUD-5): the tenant its runs queue under in the worker
 * pool (fair turns, `--tenant-concurrency`) and charge as the `tenant` budget. The verifiers of
 * http-auth.ts put it in `AuthInfo.extra.tenant`:
 *
 * - OAuth: the access token's `sub` (or the claim `tenantClaim` names), else its client id —
 *   the subject, because a hosted connector is one OAuth client for all of its users;
 * - a static token: one tenant, {@link STATIC_TOKEN_TENANT};
 * - no authorization (loopback only) and stdio: no tenant, so every call shares one.
 *
 * Kept apart from http-auth.ts so the workflow server reads it without loading jose.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { ApiTenant, ApiTenantLimits } from "../../../../ports/api-keys.js";

/** The tenant of every request a static bearer token authorizes. */
export const STATIC_TOKEN_TENANT = "static-token";

/** The claim naming an OAuth request's tenant when `tenantClaim` is not given. */
export const DEFAULT_TENANT_CLAIM = "sub";

/**
 * The tenant of a request's verified auth, or `undefined` for a request without authorization.
 *
 * @example
 * const tenant = tenantOfAuth(extra.authInfo); // "user-42" for a token whose sub is user-42
 */
export function tenantOfAuth(auth: AuthInfo | undefined): string | undefined {
  if (!auth) return undefined;
  const tenant = auth.extra?.tenant;
  return typeof tenant === "string" && tenant !== "" ? tenant : auth.clientId;
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
  return tenant === undefined || tenant === STATIC_TOKEN_TENANT || tenant.startsWith("token:") ? undefined : tenant;
}

/** The limits a key-store tenant puts on its runs: the budget they reserve and the token rate they charge. */
export type RunTenantLimits = Pick<ApiTenantLimits, "budgetTokens" | "budgetUsd" | "budgetPeriod" | "tokensPerMinute">;

/**
 * BUD-4: the run limits of an API-key request's tenant (`--keys` puts the key's tenant in
 * `AuthInfo.extra.apiTenant`), or `undefined` for other authorization or a tenant without them.
 *
 * @example
 * const limits = tenantLimitsOfAuth(extra.authInfo); // { budgetTokens: 1000 } for such a key
 */
export function tenantLimitsOfAuth(auth: AuthInfo | undefined): RunTenantLimits | undefined {
  const tenant = auth?.extra?.apiTenant as ApiTenant | undefined;
  if (!tenant) return undefined;
  const limits: RunTenantLimits = {
    ...(tenant.budgetTokens === undefined ? {} : { budgetTokens: tenant.budgetTokens }),
    ...(tenant.budgetUsd === undefined ? {} : { budgetUsd: tenant.budgetUsd }),
    ...(tenant.budgetPeriod === undefined ? {} : { budgetPeriod: tenant.budgetPeriod }),
    ...(tenant.tokensPerMinute === undefined ? {} : { tokensPerMinute: tenant.tokensPerMinute }),
  };
  return Object.keys(limits).length > 0 ? limits : undefined;
}
