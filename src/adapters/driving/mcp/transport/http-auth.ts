/**
 * Bearer authorization of the Streamable HTTP endpoint (MCP-11, MCP-12, MCP-21), on the SDK's
 * web-standard bearer check (`verifyBearerToken`, `bearerAuthChallengeResponse`) so the 401/403
 * answers and their `WWW-Authenticate` challenges are the SDK's. It runs before either revision's
 * leg, so a stateless 2026-07-28 request passes exactly the checks a 2025-11-25 one does:
 *
 * - a static token (single-user setups) grants every tool;
 *
 * Every verifier puts the request's `Principal` (TEN-1, src/domain/principal.ts) in `AuthInfo.extra.principal`, or
 * refuses the token with a 401 naming what it lacks.
 * - OAuth 2.1 resource server (the MCP authorization spec): protected-resource metadata (RFC 9728)
 *   naming the authorization server, JWT access tokens (RFC 9068) verified against the
 *   server's JWKS with `jose`, the audience bound to this resource, scopes per tool;
 * - API keys of the gateway's key store (BUD-4): the key's tenant is the caller's tenant, and each
 *   `tools/call` is admitted against the tenant's limits (http-admission.ts).
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from "jose";
import { discoverAuthorizationServerMetadata } from "@modelcontextprotocol/client";
import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  oauthMetadataResponse,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type AuthMetadataOptions,
  type OAuthTokenVerifier,
} from "@modelcontextprotocol/server";
import { SteamharnessError } from "../../../../domain/errors.js";
import { createPrincipal, staticTokenPrincipal, usableId, type PrincipalInput } from "../../../../domain/principal.js";
import type { TenantAdmissions } from "../../../../app/tenants/tenant-admission.js";
import { createRateLimiter, FAILED_AUTH_LIMIT } from "../../shared/rate-limit.js";
import { admitToolCalls } from "./http-admission.js";
import { scopesOfPolicy, scopesOfRequest, type McpScopePolicy } from "./http-scopes.js";
import { DEFAULT_TENANT_CLAIM } from "./http-tenant.js";

/** A static bearer token: whoever presents it may list and call every tool. */
export interface McpHttpTokenAuth {
  kind: "token";
  /** The secret clients send as `Authorization: Bearer <token>` (at least 16 characters). */
  token: string;
}

/** OAuth 2.1 resource server: JWT access tokens of one authorization server, for this resource only. */
export interface McpHttpOAuth {
  kind: "oauth";
  /** The authorization server's issuer URL; its metadata (RFC 8414 or OpenID discovery) is read once at start. */
  issuer: string;
  /** This resource's URL as tokens name it in `aud`: the MCP endpoint's public URL (`https://mcp.example.com/mcp`). */
  audience: string;
  /** Scopes each request needs; `read` for everything but `tools/call`, `run` for calls (see `DEFAULT_MCP_SCOPES`). */
  scopes?: McpScopePolicy;
  /** Shown to people in the protected-resource metadata. */
  resourceName?: string;
  /**
   * BUD-5, TEN-1: the token claim naming the request's tenant (`oauth:<value>`: fair worker turns,
   * tenant budgets, tasks); `sub` by default. A token without it, or with an empty or non-string
   * value, is refused (401) — never given its client id's tenant.
   */
  tenantClaim?: string;
}

/** BUD-4: API keys (`sh_…`) of the key store `steamharness gateway keys add` writes to. */
export interface McpHttpKeyAuth {
  kind: "keys";
  /** Key verification (cached: the revocation bound) and tenant admission, on the shared key store. */
  admission: TenantAdmissions;
}

/** How the HTTP endpoint authorizes requests. */
export type McpHttpAuthOptions = McpHttpTokenAuth | McpHttpOAuth | McpHttpKeyAuth;

/** The principal of verified credential ids, or the SDK's 401 (`invalid_token`) naming the missing one. */
function principalOf(input: PrincipalInput) {
  try {
    return createPrincipal(input);
  } catch (error) {
    throw new OAuthError(OAuthErrorCode.InvalidToken, (error as Error).message.replace(/^\[steamharness\] \[tenants\] /, ""));
  }
}

/** A static token never expires; the SDK middleware still wants an expiry, so it gets a far one. */
const NEVER = Number.MAX_SAFE_INTEGER;

function tokenVerifier(expected: string): OAuthTokenVerifier {
  const wanted = Buffer.from(expected);
  return {
    async verifyAccessToken(token) {
      const given = Buffer.from(token);
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw new OAuthError(OAuthErrorCode.InvalidToken, "Invalid token");
      const principal = staticTokenPrincipal("mcp-http");
      return { token, clientId: principal.credentialId, scopes: [], expiresAt: NEVER, extra: { principal } };
    },
  };
}

/** Verifies API keys: unknown, malformed or revoked (once the cache bound passed) is a 401; the key's tenant rides in `extra`. */
function keyVerifier(admission: TenantAdmissions): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token) {
      const identity = await admission.identify(token);
      if (!identity) throw new OAuthError(OAuthErrorCode.InvalidToken, "Invalid API key");
      const principal = principalOf({ source: "key", surface: "mcp-http", tenantId: identity.tenant.id, subject: identity.key.id, credentialId: identity.key.id });
      return { token, clientId: principal.credentialId, scopes: [], expiresAt: NEVER, extra: { principal, apiTenant: identity.tenant } };
    },
  };
}

/** Verified access tokens kept; the least recently verified goes first. */
const MAX_VERIFIED_TOKENS = 1024;
/** How long a verified token is trusted without verifying its signature again (its own expiry is still checked per request). */
const VERIFIED_TOKEN_MS = 60_000;

/**
 * Verifies JWT access tokens: signature (JWKS), issuer, audience, expiry; the scopes come from
 * `scope`, the tenant from `tenantClaim`. A token verified in the last minute is not verified
 * again (a signature check costs ~0.2 ms per call): its claims cannot change, its expiry is
 * checked on every request, and a signing key the server withdraws stops its tokens within that
 * minute.
 */
function jwtVerifier(issuer: string, jwksUri: URL, audience: string, tenantClaim: string): OAuthTokenVerifier {
  const keys = createRemoteJWKSet(jwksUri);
  const verified = new Map<string, { auth: AuthInfo; until: number }>();
  /** The auth of a token verified within the minute and not expired (it becomes the most recently used), else undefined (and forgotten). */
  const known = (token: string): AuthInfo | undefined => {
    const now = Date.now();
    const entry = verified.get(token);
    if (!entry) return undefined;
    verified.delete(token);
    if (entry.until <= now || (entry.auth.expiresAt !== undefined && entry.auth.expiresAt <= now / 1000)) return undefined;
    verified.set(token, entry);
    return entry.auth;
  };
  return {
    async verifyAccessToken(token) {
      const now = Date.now();
      const cached = known(token);
      if (cached) return cached;
      try {
        const { payload } = await jwtVerify(token, keys, { issuer, audience });
        const scopes = typeof payload.scope === "string" ? payload.scope.split(" ").filter(Boolean) : [];
        // RFC 9068 names the client in client_id; azp is the OpenID spelling some servers use instead.
        const clientId = payload.client_id ?? payload.azp;
        // TEN-1: no substitutes — a token lacking the tenant claim, a usable sub or its client is refused.
        const lacking = [[tenantClaim, payload[tenantClaim]], ["sub", payload.sub], ["client_id", clientId]].find(([, value]) => usableId(value) === undefined);
        if (lacking) throw new OAuthError(OAuthErrorCode.InvalidToken, `Token has no usable '${String(lacking[0])}' claim${lacking[0] === tenantClaim && tenantClaim !== "sub" ? " (the tenant claim)" : ""}`);
        const principal = principalOf({ source: "oauth", surface: "mcp-http", tenantId: payload[tenantClaim], subject: payload.sub, credentialId: clientId });
        const auth: AuthInfo = { token, clientId: principal.credentialId, scopes, ...(payload.exp !== undefined ? { expiresAt: payload.exp } : {}), resource: new URL(audience), extra: { principal } };
        verified.set(token, { auth, until: now + VERIFIED_TOKEN_MS });
        if (verified.size > MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
        return auth;
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw new OAuthError(OAuthErrorCode.InvalidToken, "Token has expired");
        if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === "aud") throw new OAuthError(OAuthErrorCode.InvalidToken, "Token was not issued for this resource");
        if (error instanceof joseErrors.JOSEError) throw new OAuthError(OAuthErrorCode.InvalidToken, `Invalid token (${error.code})`);
        throw error;
      }
    },
  };
}

/** How an endpoint authorizes its requests: {@link prepareAuthorization}. */
export interface McpHttpAuthorization {
  /** The public metadata documents (RFC 9728, RFC 8414) when `request` asks for one, else undefined; none for a static token or API keys. */
  metadata?(request: Request): Response | undefined;
  /**
   * The bearer check of one request to the MCP path, whose parsed body says which scopes it needs:
   * its verified auth (the principal in `extra.principal`), or the answer refusing it (401 with
   * the challenge, 403 `insufficient_scope` naming the scopes, 429 after repeated failures, or an
   * API-key tenant's refused admission) — then `release`, for an admitted request, runs when its
   * response ends.
   */
  check(req: IncomingMessage, body: unknown): Promise<{ auth: AuthInfo; release(): void } | Response>;
}

/**
 * TEN-7: failed authentications per client address are limited (429 + `Retry-After`, the limiter
 * the gateway and the configuration server share) for a shared secret (`--keys`,
 * `--auth-token-file`). The limit is consulted only after the credential did not verify, so bad
 * secrets from an address never lock out a valid one sent from it. OAuth needs none: a JWT is
 * verified by signature, not guessed against a secret.
 */
function limitFailedAuth(): (req: IncomingMessage, refusal: Response) => Response {
  const failures = createRateLimiter(FAILED_AUTH_LIMIT, Date.now);
  return (req, refusal) => {
    const wait = failures.take(req.socket.remoteAddress ?? "unknown");
    if (wait === 0) return refusal;
    return Response.json({ error: "too_many_requests", error_description: `Too many failed authentications from this address: try again in ${wait} s` }, { status: 429, headers: { "retry-after": String(wait) } });
  };
}

/** The bearer check of one verifier: the verified auth, or the SDK's challenge answer. */
async function bearer(req: IncomingMessage, options: Parameters<typeof verifyBearerToken>[1]): Promise<AuthInfo | Response> {
  try {
    return await verifyBearerToken(req.headers.authorization, options);
  } catch (error) {
    return bearerAuthChallengeResponse(error, options);
  }
}

const NOTHING_TO_RELEASE = () => undefined;

/**
 * Prepares the authorization of an endpoint: for OAuth, reads the authorization server's metadata
 * (rejects with `unavailable` when it cannot, `input_validation` when it is not OAuth metadata)
 * and builds the RFC 9728 document.
 *
 * @example
 * const authorization = await prepareAuthorization({ kind: "token", token });
 * const checked = await authorization.check(req, body); // a Response when refused
 */
export async function prepareAuthorization(auth: McpHttpAuthOptions): Promise<McpHttpAuthorization> {
  if (auth.kind === "keys") {
    const verifier = keyVerifier(auth.admission);
    const admit = admitToolCalls(auth.admission);
    const limited = limitFailedAuth();
    return {
      async check(req, body) {
        const verified = await bearer(req, { verifier });
        if (verified instanceof Response) return limited(req, verified);
        const admitted = await admit(verified, req.method, body);
        return admitted instanceof Response ? admitted : { auth: verified, release: admitted };
      },
    };
  }
  if (auth.kind === "token") {
    const verifier = tokenVerifier(auth.token);
    const limited = limitFailedAuth();
    return {
      async check(req) {
        const verified = await bearer(req, { verifier });
        return verified instanceof Response ? limited(req, verified) : { auth: verified, release: NOTHING_TO_RELEASE };
      },
    };
  }
  let oauthMetadata;
  try {
    oauthMetadata = await discoverAuthorizationServerMetadata(auth.issuer);
  } catch (error) {
    // DX-18: metadata that is not RFC 8414 / OpenID metadata is the flag's fault (exit 2), told in
    // one line; the SDK's schema error would print its whole issue list as JSON.
    const issues = metadataIssues(error);
    if (issues) throw new SteamharnessError("input_validation", `[steamharness] [mcp] ${auth.issuer} does not publish OAuth authorization server metadata (RFC 8414 / OpenID discovery): ${issues}; is --oauth-issuer the authorization server's issuer URL?`, { field: "--oauth-issuer", cause: error });
    throw new SteamharnessError("unavailable", `[steamharness] [mcp] cannot read the authorization server's metadata at ${auth.issuer}: ${(error as Error)?.message ?? String(error)}`, { field: "--oauth-issuer", cause: error });
  }
  if (!oauthMetadata?.jwks_uri) throw new SteamharnessError("unavailable", `[steamharness] [mcp] the authorization server ${auth.issuer} publishes no metadata with a jwks_uri (RFC 8414 / OpenID discovery)`, { field: "--oauth-issuer" });
  const resource = new URL(auth.audience);
  const policy = auth.scopes;
  const verifier = jwtVerifier(oauthMetadata.issuer, new URL(String(oauthMetadata.jwks_uri)), auth.audience, auth.tenantClaim ?? DEFAULT_TENANT_CLAIM);
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource);
  const documents: AuthMetadataOptions = {
    oauthMetadata,
    resourceServerUrl: resource,
    scopesSupported: scopesOfPolicy(policy),
    ...(auth.resourceName ? { resourceName: auth.resourceName } : {}),
  };
  // An issuer that is not https (outside loopback) fails here, at start, not at the first request.
  buildOAuthProtectedResourceMetadata(documents);
  return {
    metadata: (request) => oauthMetadataResponse(request, documents),
    async check(req, body) {
      // MCP-21: the audience is this resource (RFC 8707), and a 403 names exactly the scopes this request lacks.
      const verified = await bearer(req, { verifier, requiredScopes: scopesOfRequest(body, policy), resourceMetadataUrl, expectedResource: resource });
      return verified instanceof Response ? verified : { auth: verified, release: NOTHING_TO_RELEASE };
    },
  };
}

/** A schema error's issues as one phrase (`issuer: expected string, received number; token_endpoint missing`), else null. */
function metadataIssues(error: unknown): string | null {
  const issues = (error as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return null;
  const phrases = issues.slice(0, 5).map((issue: { path?: unknown[]; message?: string }) => {
    const field = Array.isArray(issue.path) && issue.path.length > 0 ? issue.path.join(".") : "the document";
    return /received undefined/.test(issue.message ?? "") ? `${field} missing` : `${field}: ${(issue.message ?? "invalid").replace(/^Invalid input: /, "")}`;
  });
  return `${phrases.join("; ")}${issues.length > 5 ? `; and ${issues.length - 5} more` : ""}`;
}
