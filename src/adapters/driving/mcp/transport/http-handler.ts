/**
 * Streamable HTTP for any MCP server of the library (MCP-11): one `(req, res)` listener a host
 * mounts on its own `node:http` server (or the one `steamharness mcp --http` starts), on the SDK's
 * v2 web-standard transports (MCP-16). A request of the 2026-07-28 revision (MCP-17) is
 * stateless, answered by http-modern.ts; 2025-11-25 clients (MCP-18) keep sessions on the SDK's
 * `WebStandardStreamableHTTPServerTransport`: an `initialize` POST builds a fresh server
 * (`createServer`) and transport, and later requests carrying its `Mcp-Session-Id` reach the
 * same pair.
 *
 * TEN-4: with authorization, a session belongs to the principal that opened it — the same tenant
 * and the same subject (OAuth `sub`, the API key, the static token). Any other principal's
 * request for it, DELETE included, is answered 404 as for an unknown session, and leaves it
 * open. Each tenant holds at most `maxSessionsPerTenant` sessions: opening more closes that
 * tenant's own least recently used one, never another tenant's.
 *
 * Every request passes the same gates, in this order, before either revision's leg: the Host
 * header (DNS rebinding: the SDK's `validateHostHeader`, loopback names by default), the Origin a
 * browser sends (an allowed origin, or one whose host name is allowed), the metadata documents
 * (public), the path, the body (http-body.ts), authorization (http-auth.ts).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isInitializeRequest, validateHostHeader, WebStandardStreamableHTTPServerTransport, type AuthInfo } from "@modelcontextprotocol/server";
import { SteamharnessError } from "../../../../domain/errors.js";
import { sameTenant, type Principal } from "../../../../domain/principal.js";
import type { McpServerHandle } from "../../../../ports/mcp-server.js";
import { prepareAuthorization, type McpHttpAuthOptions } from "./http-auth.js";
import { readMcpBody } from "./http-body.js";
import { principalOfAuth } from "./http-tenant.js";
import { createModernLeg, type ModernListen, type ModernParamHeaders } from "./http-modern.js";
import { jsonRpcErrorResponse, sendWebResponse, webRequest } from "./http-web.js";

/** The host names a loopback server answers to when none are given. */
export const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];
/** The MCP endpoint's path when none is given. */
export const DEFAULT_MCP_PATH = "/mcp";
/** Open sessions one handler keeps; a new one beyond that closes the least recently used. */
export const DEFAULT_MAX_SESSIONS = 1000;
/** The share of `maxSessions` one tenant of several holds when `maxSessionsPerTenant` is not given: a tenth. */
const TENANT_SHARE = 10;

/** Options of {@link mcpHttpListener} (and the public `createMcpHttpHandler`). */
export interface McpHttpHandlerOptions {
  /**
   * Builds the server of one new session (one per `initialize`), or of one 2026-07-28 request
   * (`revision` then names it, MCP-20: that server offers the revision's extensions); a rejection
   * is a 500 for that request.
   */
  createServer: (revision?: "2026-07-28") => McpServerHandle | Promise<McpServerHandle>;
  /** The endpoint's path (default {@link DEFAULT_MCP_PATH}); other paths answer 404. */
  path?: string;
  /** Host names (no port; IPv6 in brackets) the Host header may name; {@link LOOPBACK_HOSTS} by default. */
  allowedHosts?: string[];
  /** Origins (`https://app.example.com`) a browser may call from, beside origins whose host name is allowed. */
  allowedOrigins?: string[];
  /** Bearer-token authorization; none by default (only sensible on loopback). */
  auth?: McpHttpAuthOptions;
  /**
   * At most this many open sessions ({@link DEFAULT_MAX_SESSIONS}): a client that vanished
   * without ending its session must not lock new clients out, so a new session beyond the limit
   * closes a least recently used one (its next request answers 404, and an SDK client
   * reconnects): the opening tenant's own when it holds any, else one of the tenant holding most.
   */
  maxSessions?: number;
  /**
   * TEN-4: at most this many open sessions per tenant: a new session beyond it closes the same
   * tenant's least recently used one, so one tenant opening sessions never evicts another's.
   * Default: a tenth of `maxSessions` (at least 1) with OAuth or API keys, `maxSessions` with a
   * static token (one principal). Requests without authorization (loopback only) are one client,
   * bounded by `maxSessions` alone.
   */
  maxSessionsPerTenant?: number;
}

/** A `node:http` request listener serving MCP over Streamable HTTP. */
export interface McpHttpHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** The number of open sessions. */
  readonly sessions: number;
  /** Closes every open session (their servers' `onclose` runs); the listener keeps answering. */
  close(): Promise<void>;
}

/** An open session and the principal that opened it (none without authorization). */
interface OpenSession {
  transport: WebStandardStreamableHTTPServerTransport;
  owner: Principal | undefined;
}

/** TEN-4: whether `caller` may use a session `owner` opened: the same tenant and the same subject (both absent without authorization). */
function ownsSession(owner: Principal | undefined, caller: Principal | undefined): boolean {
  if (!owner || !caller) return owner === caller;
  return sameTenant(owner, caller) && owner.subject === caller.subject;
}

/** The hostname of an origin, or null when it is not a URL. */
function originHost(origin: string): string | null {
  try {
    return new URL(origin).host === "" ? null : new URL(origin).hostname;
  } catch {
    return null;
  }
}

/**
 * A request listener serving MCP servers over Streamable HTTP with stateful sessions, Host and
 * Origin validation, and optional bearer authorization. Throws `input_validation` for a path
 * that does not start with `/`; with OAuth, reads the authorization server's metadata first
 * (`unavailable` when it cannot).
 *
 * @example
 * const handler = await mcpHttpListener({ createServer: () => createProjectCapabilityServer(CAPABILITY_TOOL_IDS.kv, { context }) });
 * createServer(handler).listen(3000, "127.0.0.1");
 */
export async function mcpHttpListener(options: McpHttpHandlerOptions & { /** MCP-20: the 2026-07-28 `subscriptions/listen` streams served from the shared task store. */ listen?: ModernListen; /** MCP-17: the tools' params mirrored in `Mcp-Param-*` headers, checked before a call runs. */ paramHeaders?: ModernParamHeaders }): Promise<McpHttpHandler> {
  const path = options.path ?? DEFAULT_MCP_PATH;
  if (!path.startsWith("/")) throw new SteamharnessError("input_validation", `[steamharness] [mcp] the MCP path must start with "/", got ${JSON.stringify(path)}`, { field: "path" });
  const allowedHosts = options.allowedHosts ?? LOOPBACK_HOSTS;
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  // A static token is one principal: only OAuth and API keys bring several tenants to share the sessions.
  const severalTenants = options.auth !== undefined && options.auth.kind !== "token";
  const perTenant = options.maxSessionsPerTenant ?? (severalTenants ? Math.max(1, Math.floor(maxSessions / TENANT_SHARE)) : maxSessions);
  for (const [field, value] of [["maxSessions", maxSessions], ["maxSessionsPerTenant", perTenant]] as const) {
    if (!Number.isInteger(value) || value < 1) throw new SteamharnessError("input_validation", `[steamharness] [mcp] ${field} must be an integer ≥ 1, got ${String(value)}`, { field });
  }
  // Map order is use order (see serve): the first entry is the least recently used.
  const transports = new Map<string, OpenSession>();
  const authorization = options.auth ? await prepareAuthorization(options.auth) : undefined;
  const modern = createModernLeg(options.createServer, options.listen, options.paramHeaders);
  /** Closes the least recently used session of `tenant` (null: the sessions opened without authorization). */
  const evictOldest = (tenant: string | null) => {
    for (const [id, open] of transports) {
      if ((open.owner?.tenant ?? null) !== tenant) continue;
      transports.delete(id);
      void open.transport.close().catch(() => undefined);
      return;
    }
  };
  /** Makes room for a new session of `owner`: its tenant's cap first, then the server-wide one. */
  const makeRoom = (owner: Principal | undefined) => {
    const counts = new Map<string | null, number>();
    for (const open of transports.values()) counts.set(open.owner?.tenant ?? null, (counts.get(open.owner?.tenant ?? null) ?? 0) + 1);
    const own = owner?.tenant ?? null;
    // Without authorization there are no tenants: only the server-wide cap applies.
    while (owner && (counts.get(own) ?? 0) >= perTenant) {
      evictOldest(own);
      counts.set(own, counts.get(own)! - 1);
    }
    while (transports.size >= maxSessions) {
      // The opening tenant's own session when it has one, else one of the tenant holding most.
      const victim = (counts.get(own) ?? 0) > 0 ? own : [...counts].reduce((most, entry) => (entry[1] > most[1] ? entry : most))[0];
      evictOldest(victim);
      counts.set(victim, counts.get(victim)! - 1);
    }
  };
  const originAllowed = (origin: string | undefined) => {
    if (origin === undefined || allowedOrigins.has(origin)) return true;
    const host = originHost(origin);
    // URL's hostname keeps IPv6 brackets, as the allowed hosts are written.
    return host !== null && allowedHosts.includes(host);
  };
  /** The 2025-11-25 leg: the caller's own session, or a new one for an `initialize` POST. */
  const session = async (req: IncomingMessage, request: Request, body: unknown, auth: AuthInfo | undefined): Promise<Response> => {
    const sessionId = req.headers["mcp-session-id"];
    // Only the bearer check sets `auth`: without authorization there is no principal.
    const caller = authorization ? principalOfAuth(auth) : undefined;
    const open = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    // TEN-4: another principal's session is an unknown one (the same 404), never closed by it.
    let transport = open && ownsSession(open.owner, caller) ? open.transport : undefined;
    if (!transport) {
      if (sessionId !== undefined) return jsonRpcErrorResponse(404, -32001, "Session not found");
      if (req.method !== "POST" || !isInitializeRequest(body)) return jsonRpcErrorResponse(400, -32000, "Bad Request: no valid session id; start with an initialize request");
      makeRoom(caller);
      const created: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void transports.set(id, { transport: created, owner: caller }),
        onsessionclosed: (id) => void transports.delete(id),
      });
      created.onclose = () => {
        if (created.sessionId && transports.get(created.sessionId)?.transport === created) transports.delete(created.sessionId);
      };
      const server = await options.createServer();
      await server.connect(created);
      transport = created;
    } else {
      transports.delete(sessionId as string);
      transports.set(sessionId as string, open!);
    }
    return transport.handleRequest(request, { parsedBody: body, ...(auth ? { authInfo: auth } : {}) });
  };
  /** One request through the gates, then either revision's leg. */
  const serve = async (req: IncomingMessage, res: ServerResponse, gone: AbortSignal): Promise<Response | undefined> => {
    const host = validateHostHeader(req.headers.host, allowedHosts);
    if (!host.ok) return jsonRpcErrorResponse(403, -32000, host.message);
    if (!originAllowed(req.headers.origin)) return jsonRpcErrorResponse(403, -32000, `Invalid Origin: ${req.headers.origin}`);
    const request = webRequest(req, gone);
    const document = authorization?.metadata?.(request);
    if (document) return document;
    // One trailing slash is the same endpoint (clients and proxies add one); the path is case-sensitive.
    const { pathname } = new URL(request.url);
    if (pathname !== path && pathname !== `${path}/`) return jsonRpcErrorResponse(404, -32000, `Not Found: the MCP endpoint is ${path}`);
    const body = await readMcpBody(req);
    if (body instanceof Response) return body;
    let auth: AuthInfo | undefined;
    if (authorization) {
      const checked = await authorization.check(req, body);
      if (checked instanceof Response) return checked;
      res.once("close", checked.release);
      auth = checked.auth;
    }
    // MCP-17: a 2026-07-28 request needs no session: any host answers it.
    if (modern.claims(req, body)) return modern.serve(request, body, auth, res);
    return session(req, request, body, auth);
  };
  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    // A client that goes away aborts its request: the SDK then ends its stream (and cancels the run).
    const gone = new AbortController();
    const onClose = () => gone.abort();
    res.once("close", onClose);
    serve(req, res, gone.signal)
      .catch((error: unknown) => jsonRpcErrorResponse(500, -32603, `Internal error: ${(error as Error)?.message ?? String(error)}`))
      .then((response) => (response && !res.headersSent ? sendWebResponse(res, response, gone.signal) : undefined))
      .catch(() => res.destroy())
      .finally(() => res.off("close", onClose));
  }) as McpHttpHandler;
  Object.defineProperty(handler, "sessions", { get: () => transports.size });
  handler.close = async () => {
    const open = [...transports.values()];
    transports.clear();
    await Promise.all([...open.map(({ transport }) => transport.close().catch(() => undefined)), modern.close()]);
  };
  return handler;
}
