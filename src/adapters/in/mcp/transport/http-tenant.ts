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
