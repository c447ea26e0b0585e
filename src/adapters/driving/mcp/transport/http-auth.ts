/**
 * Bearer authorization of the Streamable HTTP endpoint (MCP-11, MCP-12), on the SDK's auth
 * middleware so the 401/403 answers and their `WWW-Authenticate` headers are the SDK's:
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
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from "jose";
import { discoverAuthorizationServerMetadata } from "@modelcontextprotocol/sdk/client/auth.js";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { OAuthTokenVerifier } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import { getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
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

/** A request as the SDK's express app hands it on (parsed body, path without the query). */
export type McpHttpRequest = IncomingMessage & { body?: unknown; path: string; auth?: AuthInfo };
/** An express-style middleware on node's request and response. */
export type McpHttpMiddleware = (req: McpHttpRequest, res: ServerResponse, next: (error?: unknown) => void) => void | Promise<void>;

/** The principal of verified credential ids, or the SDK's 401 (`invalid_token`) naming the missing one. */
function principalOf(input: PrincipalInput) {
  try {
    return createPrincipal(input);
  } catch (error) {
    throw new InvalidTokenError((error as Error).message.replace(/^\[steamharness\] \[tenants\] /, ""));
  }
}

/** A static token never expires; the SDK middleware still wants an expiry, so it gets a far one. */
const NEVER = Number.MAX_SAFE_INTEGER;

function tokenVerifier(expected: string): OAuthTokenVerifier {
  const wanted = Buffer.from(expected);
  return {
    async verifyAccessToken(token) {
      const given = Buffer.from(token);
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw new InvalidTokenError("Invalid token");
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
      if (!identity) throw new InvalidTokenError("Invalid API key");
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
function jwtVerifier(issuer: string, jwksUri: URL, audience: string, tenantClaim: string): OAuthTokenVerifier & { known(token: string): AuthInfo | undefined } {
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
    known,
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
        if (lacking) throw new InvalidTokenError(`Token has no usable '${String(lacking[0])}' claim${lacking[0] === tenantClaim && tenantClaim !== "sub" ? " (the tenant claim)" : ""}`);
        const principal = principalOf({ source: "oauth", surface: "mcp-http", tenantId: payload[tenantClaim], subject: payload.sub, credentialId: clientId });
        const auth: AuthInfo = { token, clientId: principal.credentialId, scopes, ...(payload.exp !== undefined ? { expiresAt: payload.exp } : {}), resource: new URL(audience), extra: { principal } };
        verified.set(token, { auth, until: now + VERIFIED_TOKEN_MS });
        if (verified.size > MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
        return auth;
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw new InvalidTokenError("Token has expired");
        if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === "aud") throw new InvalidTokenError("Token was not issued for this resource");
        if (error instanceof joseErrors.JOSEError) throw new InvalidTokenError(`Invalid token (${error.code})`);
        throw error;
      }
    },
  };
}

/** The middlewares an HTTP endpoint mounts: metadata routes (public) and the bearer check of the MCP path. */
export interface McpHttpAuthorization {
  /** Public routes (protected-resource metadata), mounted before the check; none for a static token. */
  metadata?: McpHttpMiddleware;
  /** The bearer check of requests to the MCP path; other paths pass. */
  check: McpHttpMiddleware;
  /**
   * The check's success alone, for the handler's direct path (no Express): the request's auth when
   * its bearer token passes exactly what {@link check} requires for this body, else `undefined` —
   * and the request then goes through {@link check}, which answers the refusal. None for API keys
   * (their admission answers on the Express path).
   */
  accepted?(req: IncomingMessage, body: unknown): Promise<AuthInfo | undefined>;
}

/**
 * What the SDK's `requireBearerAuth` accepts, without answering: a `Bearer` token the verifier
 * takes, for `resource` when given, with every scope in `scopes`, not expired.
 */
async function acceptedBy(verifier: OAuthTokenVerifier & { known?(token: string): AuthInfo | undefined }, req: IncomingMessage, scopes: readonly string[], resource?: URL): Promise<AuthInfo | undefined> {
  const [type, token] = (req.headers.authorization ?? "").split(" ");
  if (type?.toLowerCase() !== "bearer" || !token) return undefined;
  // TEN-1: a token verified within the minute is taken from the cache without a promise chain (every call's path); the checks below still run.
  const auth = verifier.known?.(token) ?? (await verifier.verifyAccessToken(token).catch(() => undefined));
  if (!auth || (resource !== undefined && auth.resource?.href !== resource.href)) return undefined;
  if (!scopes.every((scope) => auth.scopes.includes(scope))) return undefined;
  return typeof auth.expiresAt === "number" && auth.expiresAt >= Date.now() / 1000 ? auth : undefined;
}

/**
 * TEN-7: failed authentications per client address are limited (429 + `Retry-After`, the limiter
 * the gateway and the configuration server share) for a shared secret (`--keys`,
 * `--auth-token-file`). The limit is consulted only after the credential did not verify, so bad
 * secrets from an address never lock out a valid one sent from it. OAuth needs none: a JWT is
 * verified by signature, not guessed against a secret.
 */
function limitFailedAuth(verifies: (req: IncomingMessage) => Promise<boolean>, check: McpHttpMiddleware): McpHttpMiddleware {
  const failures = createRateLimiter(FAILED_AUTH_LIMIT, Date.now);
  return async (req, res, next) => {
    const wait = (await verifies(req)) ? 0 : failures.take(req.socket.remoteAddress ?? "unknown");
    if (wait > 0) return void res.writeHead(429, { "content-type": "application/json", "retry-after": String(wait) }).end(JSON.stringify({ error: "too_many_requests", error_description: `Too many failed authentications from this address: try again in ${wait} s` }));
    return check(req, res, next);
  };
}

/**
 * Prepares the authorization of an endpoint at `path`: for OAuth, reads the authorization
 * server's metadata (rejects with `unavailable` when it cannot) and builds the RFC 9728 document.
 *
 * @example
 * const { metadata, check } = await prepareAuthorization({ kind: "token", token }, "/mcp");
 */
export async function prepareAuthorization(auth: McpHttpAuthOptions, path: string): Promise<McpHttpAuthorization> {
  const onPath = (middleware: McpHttpMiddleware): McpHttpMiddleware => (req, res, next) => (req.path === path ? middleware(req, res, next) : next());
  if (auth.kind === "keys") {
    const bearer = requireBearerAuth({ verifier: keyVerifier(auth.admission) }) as unknown as McpHttpMiddleware;
    const admit = admitToolCalls(auth.admission);
    const verifies = async (req: IncomingMessage) => {
      const secret = /^Bearer +(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
      return secret !== undefined && (await auth.admission.identify(secret)) !== null;
    };
    return { check: onPath(limitFailedAuth(verifies, (req, res, next) => bearer(req, res, (error?: unknown) => (error === undefined ? admit(req, res, next) : next(error))))) };
  }
  if (auth.kind === "token") {
    const verifier = tokenVerifier(auth.token);
    const accepted = (req: IncomingMessage) => acceptedBy(verifier, req, []);
    return { check: onPath(limitFailedAuth(async (req) => (await accepted(req)) !== undefined, requireBearerAuth({ verifier }) as unknown as McpHttpMiddleware)), accepted };
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
  // One SDK middleware per set of required scopes, so its 403 names exactly the scopes missing.
  const checks = new Map<string, McpHttpMiddleware>();
  const checkFor = (scopes: string[]) => {
    const key = scopes.join(" ");
    let check = checks.get(key);
    if (!check) checks.set(key, (check = requireBearerAuth({ verifier, requiredScopes: scopes, resourceMetadataUrl, expectedResource: resource }) as unknown as McpHttpMiddleware));
    return check;
  };
  const metadata = mcpAuthMetadataRouter({
    oauthMetadata,
    resourceServerUrl: resource,
    scopesSupported: scopesOfPolicy(policy),
    ...(auth.resourceName ? { resourceName: auth.resourceName } : {}),
  }) as unknown as McpHttpMiddleware;
  return {
    metadata,
    check: onPath((req, res, next) => checkFor(scopesOfRequest(req.body, policy))(req, res, next)),
    accepted: (req, body) => acceptedBy(verifier, req, scopesOfRequest(body, policy), resource),
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
