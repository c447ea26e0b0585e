/**
 * Who may talk to the gateway (GW-4, SEC-7), checked before a request is read: the Host and
 * Origin headers, the bearer token, and the rate limits.
 *
 * - Host and Origin: a web page whose name an attacker re-points at 127.0.0.1 (DNS rebinding)
 *   reaches the gateway with its own name in `Host`, and any page sends its origin in `Origin`.
 *   Only loopback names, the address the gateway listens on and names the operator allows are
 *   served (403 otherwise), so the token is not the only defence (src/adapters/driving/shared/host-check.ts,
 *   shared with the configuration server).
 * - Rate limits: requests with the right token count against the token; requests without it
 *   count against the client's address. On loopback every local process has the same address, so
 *   a process guessing tokens exhausts only the failed-auth budget of that address, never the
 *   budget of clients that hold the token.
 * - API keys (BUD-4): a key the key store verifies is admitted whatever its address's failed-auth
 *   count — the failed-auth limit is only consulted once a key did not verify — so hammering bad
 *   keys from one address never locks out a valid key sent from it.
 * - TEN-1: a request that passes is one principal: an API key's (`key:<tenant id>`, subject the
 *   key's id) or the single token's (`token:static`).
 */
import type { IncomingMessage } from "node:http";
import { createPrincipal, staticTokenPrincipal, type Principal } from "../../../domain/principal.js";
import type { ApiKeyIdentity } from "../../../ports/api-keys.js";
import { createHostCheck } from "../shared/host-check.js";
import { createRateLimiter } from "../shared/rate-limit.js";
import { bearerCheck, GatewayHttpError, type GatewayRateLimit } from "./gateway-http.js";

/** Options of {@link createGatewayGuard}. */
export interface GatewayGuardOptions {
  /** The single bearer token, or null when only API keys are accepted. */
  token: string | null;
  /** Verifies an API key (BUD-4): its identity, or null; absent = no API keys. */
  identify?: (secret: string) => Promise<ApiKeyIdentity | null>;
  /** Requests per window, for the token and for failed auth per address; `false`: no limit. */
  rateLimit: GatewayRateLimit | false;
  /** Host names (or addresses) served besides loopback. */
  allowedHosts: readonly string[];
  now: () => number;
}

/** A request that may proceed: its principal, and the API key's identity (null for the single token). */
export interface GatewayCaller {
  principal: Principal;
  identity: ApiKeyIdentity | null;
}

/** The single token's principal: one for every request that presents it. */
const TOKEN_PRINCIPAL = staticTokenPrincipal("gateway");

/**
 * Principals of verified identities: the key cache hands out one identity object per key until
 * it asks the store again (the revocation bound), so its principal is made once, not per request.
 */
const principals = new WeakMap<ApiKeyIdentity, Principal>();

/** The principal of a verified API key; a key whose ids are not usable is refused as an unknown one. */
function keyPrincipal(identity: ApiKeyIdentity): Principal {
  let principal = principals.get(identity);
  if (principal) return principal;
  try {
    const { id, ...limits } = identity.tenant;
    principal = createPrincipal({ source: "key", surface: "gateway", tenantId: id, subject: identity.key.id, credentialId: identity.key.id, limits });
  } catch {
    throw new GatewayHttpError(401, "Incorrect API key provided.", { code: "invalid_api_key" });
  }
  principals.set(identity, principal);
  return principal;
}

/**
 * The request guard of one gateway: `check` throws the {@link GatewayHttpError} a request is
 * refused with (403, 401, 429) or returns when it may proceed; `allowHost` adds a served name
 * (the listening address).
 *
 * @example
 * const guard = createGatewayGuard({ token, rateLimit: { requests: 600, windowMs: 60_000 }, allowedHosts: [], now: Date.now });
 * const { principal, identity } = await guard.check(request);
 */
export function createGatewayGuard(options: GatewayGuardOptions) {
  const hosts = createHostCheck(options.allowedHosts, "gateway");
  const authorized = options.token === null ? () => false : bearerCheck(options.token);
  const limit = options.rateLimit === false ? null : options.rateLimit;
  const tokenLimiter = limit ? createRateLimiter(limit, options.now) : null;
  const failureLimiter = limit ? createRateLimiter(limit, options.now) : null;
  const limited = (wait: number): GatewayHttpError =>
    new GatewayHttpError(429, `Rate limit reached: try again in ${wait} s.`, { type: "requests", code: "rate_limit_exceeded", headers: { "retry-after": String(wait) } });
  const checkHost = (request: IncomingMessage): void => {
    const refused = hosts.refusal(request);
    if (refused) throw new GatewayHttpError(403, refused.message, { code: refused.code });
  };

  return {
    /** Serves `name` too (an address the gateway listens on). */
    allowHost(name: string): void {
      hosts.allowHost(name);
    },
    /** Throws the 403 of a request naming a Host or Origin not served (a page's files need no token, only this, UI-6). */
    checkHost,
    /**
     * Throws the refusal of a request (403 host or origin, 429, 401), or resolves its principal
     * and the API key's identity (null for the single token).
     */
    async check(request: IncomingMessage): Promise<GatewayCaller> {
      checkHost(request);
      const header = request.headers.authorization;
      if (!authorized(header)) {
        const secret = options.identify && header?.startsWith("Bearer ") ? header.slice(7).trim() : null;
        const identity = secret ? await options.identify!(secret) : null;
        if (identity) return { principal: keyPrincipal(identity), identity };
        const wait = failureLimiter?.take(request.socket.remoteAddress ?? "unknown") ?? 0;
        if (wait > 0) throw limited(wait);
        const missing = request.headers.authorization === undefined;
        throw new GatewayHttpError(401, missing ? "You didn't provide an API key. Send it as 'Authorization: Bearer <token>'." : "Incorrect API key provided.", { code: "invalid_api_key" });
      }
      // One token: every authenticated request counts against it.
      const wait = tokenLimiter?.take("token") ?? 0;
      if (wait > 0) throw limited(wait);
      return { principal: TOKEN_PRINCIPAL, identity: null };
    },
  };
}
