/**
 * Who may talk to the gateway (GW-4, SEC-7), checked before a request is read: the Host and
 * Origin headers, the bearer token, and the rate limits.
 *
 * - Host and Origin: a web page whose name an attacker re-points at 127.0.0.1 (DNS rebinding)
 *   reaches the gateway with its own name in `Host`, and any page sends its origin in `Origin`.
 *   Only loopback names, the address the gateway listens on and names the operator allows are
 *   served (403 otherwise), so the token is not the only defence.
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
import { SteamharnessError } from "../../../domain/errors.js";
import { createPrincipal, staticTokenPrincipal, type Principal } from "../../../domain/principal.js";
import type { ApiKeyIdentity } from "../../../ports/api-keys.js";
import { bearerCheck, createRateLimiter, GatewayHttpError, type GatewayRateLimit } from "./gateway-http.js";

/** The names every gateway serves: loopback. */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "::1"];

/** Options of {@link createGatewayGuard}. */
export interface GatewayGuardOptions {
  /** The single bearer token, or null when only API keys are accepted. */
  token: string | null;
  /** Verifies an API key (BUD-4): its identity, or null; absent = no API keys. */
  identify?: (secret: string) => Promise<ApiKeyIdentity | null>;
  /** Requests per window, for the token and for failed auth per address; `false`: no limit. */
  rateLimit: GatewayRateLimit | false;
  /** Host names (or addresses) served besides {@link LOOPBACK_HOSTS}. */
  allowedHosts: readonly string[];
  now: () => number;
}

/** `localhost:8787` → `localhost`, `[::1]:80` → `::1`; `null` when it is not a host[:port]. */
function hostnameOf(header: string): string | null {
  const found = /^(?:\[([0-9a-f:.]+)\]|([^:[\]\s/@]+))(?::\d{1,5})?$/i.exec(header.trim());
  return found ? normalHost(found[1] ?? found[2]!) : null;
}

const normalHost = (name: string): string => name.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");

/**
 * A host name as `--allowed-host` and `allowedHosts` take it: a DNS name or an IP address,
 * without scheme or port. Throws `input_validation` for anything else.
 *
 * @example
 * allowedHostName("Gateway.Example"); // "gateway.example"
 */
export function allowedHostName(name: string): string {
  const normal = typeof name === "string" ? normalHost(name.trim()) : "";
  if (!/^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*|[0-9a-f:.]*:[0-9a-f:.]*)$/.test(normal)) {
    throw new SteamharnessError("input_validation", `[steamharness] [gateway] allowed host '${String(name)}' is not a host name or IP address (no scheme, port or path)`, { field: "allowedHosts" });
  }
  return normal;
}

/** A request that may proceed: its principal, and the API key's identity (null for the single token). */
export interface GatewayCaller {
  principal: Principal;
  identity: ApiKeyIdentity | null;
}

/** The single token's principal: one for every request that presents it. */
const TOKEN_PRINCIPAL = staticTokenPrincipal("gateway");

const shown = (value: string): string => JSON.stringify(value.length > 100 ? `${value.slice(0, 97)}...` : value);

/** The principal of a verified API key; a key whose ids are not usable is refused as an unknown one. */
function keyPrincipal(identity: ApiKeyIdentity): Principal {
  try {
    return createPrincipal({ source: "key", surface: "gateway", tenantId: identity.tenant.id, subject: identity.key.id, credentialId: identity.key.id });
  } catch {
    throw new GatewayHttpError(401, "Incorrect API key provided.", { code: "invalid_api_key" });
  }
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
  const hosts = new Set([...LOOPBACK_HOSTS, ...options.allowedHosts.map(allowedHostName)]);
  const authorized = options.token === null ? () => false : bearerCheck(options.token);
  const limit = options.rateLimit === false ? null : options.rateLimit;
  const tokenLimiter = limit ? createRateLimiter(limit, options.now) : null;
  const failureLimiter = limit ? createRateLimiter(limit, options.now) : null;
  const limited = (wait: number): GatewayHttpError =>
    new GatewayHttpError(429, `Rate limit reached: try again in ${wait} s.`, { type: "requests", code: "rate_limit_exceeded", headers: { "retry-after": String(wait) } });

  return {
    /** Serves `name` too (an address the gateway listens on). */
    allowHost(name: string): void {
      hosts.add(normalHost(name));
    },
    /**
     * Throws the refusal of a request (403 host or origin, 429, 401), or resolves its principal
     * and the API key's identity (null for the single token).
     */
    async check(request: IncomingMessage): Promise<GatewayCaller> {
      const host = request.headers.host;
      const hostname = host === undefined ? null : hostnameOf(host);
      if (hostname === null || !hosts.has(hostname)) {
        throw new GatewayHttpError(403, `The Host ${host === undefined ? "(none)" : shown(host)} is not served by this gateway; allow it with --allowed-host (allowedHosts).`, { code: "host_not_allowed" });
      }
      const origin = request.headers.origin;
      if (origin !== undefined) {
        let originHost: string | null = null;
        try {
          const url = new URL(origin);
          if (url.protocol === "http:" || url.protocol === "https:") originHost = normalHost(url.hostname);
        } catch {
          // not a URL (`null` from a sandboxed page or a file): refused below
        }
        if (originHost === null || !hosts.has(originHost)) {
          throw new GatewayHttpError(403, `Requests from the origin ${shown(origin)} are not served by this gateway; allow its host with --allowed-host (allowedHosts).`, { code: "origin_not_allowed" });
        }
      }
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
