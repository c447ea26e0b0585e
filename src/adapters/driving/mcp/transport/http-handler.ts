/**
 * Streamable HTTP for any MCP server of the library (MCP-11): one `(req, res)` listener a host
 * mounts on its own `node:http` server (or the one `steamharness mcp --http` starts). A request
 * of the 2026-07-28 revision (MCP-17) is stateless, answered by http-modern.ts; 2025-11-25
 * clients (MCP-18) keep sessions, which are stateful, as the SDK's `StreamableHTTPServerTransport` keeps them: an `initialize` POST
 * builds a fresh server (`createServer`) and transport, and later requests carrying its
 * `Mcp-Session-Id` reach the same pair.
 *
 * TEN-4: with authorization, a session belongs to the principal that opened it — the same tenant
 * and the same subject (OAuth `sub`, the API key, the static token). Any other principal's
 * request for it, DELETE included, is answered 404 as for an unknown session, and leaves it
 * open. Each tenant holds at most `maxSessionsPerTenant` sessions: opening more closes that
 * tenant's own least recently used one, never another tenant's.
 *
 * DNS rebinding: the Host header must name an allowed host (the loopback names by default) and
 * an `Origin`, when a browser sends one, must be an allowed origin or have an allowed host name;
 * anything else is refused with 403 before the body is read. Authorization (bearer tokens,
 * protected-resource metadata) is `http-auth.ts`.
 *
 * Requests run through the SDK's Express app (Host validation, `express.json()`, the Origin
 * check, authorization, the route) — except, without authorization, the plain ones: a request
 * for exactly the MCP path whose Host and Origin pass and whose body is absent or plain JSON is
 * served directly (http-body.ts), because the Express router and body-parser cost about as much
 * CPU per request as the SDK transport itself. Everything else (a refusal, another path, an
 * encoded body, a body that does not parse) still gets Express's answer.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { SteamharnessError } from "../../../../domain/errors.js";
import { sameTenant, type Principal } from "../../../../domain/principal.js";
import type { McpServerHandle } from "../../../../ports/mcp-server.js";
import { prepareAuthorization, type McpHttpAuthOptions, type McpHttpRequest } from "./http-auth.js";
import { bodyKind, readJsonBody, type BodyError } from "./http-body.js";
import { principalOfAuth } from "./http-tenant.js";
import { createModernLeg, type ModernListen } from "./http-modern.js";

/** Where the direct path leaves a body error for Express to answer. */
const BODY_ERROR = Symbol("steamharness.mcp.bodyError");

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
  transport: StreamableHTTPServerTransport;
  owner: Principal | undefined;
}

/** TEN-4: whether `caller` may use a session `owner` opened: the same tenant and the same subject (both absent without authorization). */
function ownsSession(owner: Principal | undefined, caller: Principal | undefined): boolean {
  if (!owner || !caller) return owner === caller;
  return sameTenant(owner, caller) && owner.subject === caller.subject;
}

const jsonRpcError = (res: ServerResponse, status: number, code: number, message: string) => {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
};

/** The hostname of a Host header as the SDK's Host validation reads it, or null when it does not parse. */
function hostName(host: string | undefined): string | null {
  if (!host) return null;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
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
export async function mcpHttpListener(options: McpHttpHandlerOptions & { /** MCP-20: the 2026-07-28 `subscriptions/listen` streams served from the shared task store. */ listen?: ModernListen }): Promise<McpHttpHandler> {
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
  const authorization = options.auth ? await prepareAuthorization(options.auth, path) : undefined;
  const modern = createModernLeg(options.createServer, options.listen);
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
  // Host validation and the JSON body parser come with the SDK's app, in that order.
  // Origin check (after Host validation and the body parser, the SDK app's own order).
  const originAllowed = (origin: string | undefined) => {
    if (origin === undefined || allowedOrigins.has(origin)) return true;
    const host = originHost(origin);
    // URL's hostname keeps IPv6 brackets, as the allowed hosts are written.
    return host !== null && allowedHosts.includes(host);
  };
  const serve = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const sessionId = req.headers["mcp-session-id"];
    try {
      // MCP-17: a 2026-07-28 request needs no session: any host answers it.
      if (await modern.claims(req, body)) return await modern.serve(req, res, body, (req as McpHttpRequest).auth);
      // Only the bearer check sets `auth`; the direct path runs without authorization.
      const caller = authorization ? principalOfAuth((req as McpHttpRequest).auth) : undefined;
      const open = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
      // TEN-4: another principal's session is an unknown one (the same 404), never closed by it.
      let transport = open && ownsSession(open.owner, caller) ? open.transport : undefined;
      if (!transport) {
        if (sessionId !== undefined) return jsonRpcError(res, 404, -32001, "Session not found");
        if (req.method !== "POST" || !isInitializeRequest(body)) return jsonRpcError(res, 400, -32000, "Bad Request: no valid session id; start with an initialize request");
        makeRoom(caller);
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
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
      await transport.handleRequest(req, res, body);
    } catch (error) {
      jsonRpcError(res, 500, -32603, `Internal error: ${(error as Error)?.message ?? String(error)}`);
    }
  };
  // Host validation and the JSON body parser come with the SDK's app, in that order.
  const app = createMcpExpressApp({ allowedHosts });
  app.disable("x-powered-by");
  // A body the direct path read but could not parse: answered as body-parser's own error would be.
  app.use((req: McpHttpRequest & { [BODY_ERROR]?: BodyError }, _res: ServerResponse, next: (error?: unknown) => void) => next(req[BODY_ERROR]));
  app.use((req: McpHttpRequest, res: ServerResponse, next: () => void) => {
    if (originAllowed(req.headers.origin)) return next();
    jsonRpcError(res, 403, -32000, `Invalid Origin: ${req.headers.origin}`);
  });
  if (authorization?.metadata) app.use(authorization.metadata);
  if (authorization) app.use(authorization.check);
  app.all(path, (req: McpHttpRequest, res: ServerResponse) => serve(req, res, req.body));
  const viaExpress = (req: IncomingMessage, res: ServerResponse) => void app(req, res);
  // The direct path: exactly the MCP path, Host and Origin allowed, a plain body, and either no
  // authorization or a bearer token the check accepts (a refused one takes the Express path, whose
  // check answers it: the body is read by then, so body-parser leaves `req.body` as it is).
  const accepted = authorization?.accepted;
  const direct = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? "";
    const query = url.indexOf("?");
    if ((query < 0 ? url : url.slice(0, query)) !== path) return false;
    const host = hostName(req.headers.host);
    if (host === null || !allowedHosts.includes(host) || !originAllowed(req.headers.origin)) return false;
    const kind = bodyKind(req);
    if (kind === "express") return false;
    const proceed = async (body: unknown) => {
      const auth = accepted ? await accepted(req, body) : undefined;
      if (accepted && !auth) {
        (req as McpHttpRequest).body = body;
        return viaExpress(req, res);
      }
      if (auth) (req as McpHttpRequest).auth = auth;
      await serve(req, res, body);
    };
    if (kind === "none") {
      void proceed(undefined);
      return true;
    }
    readJsonBody(req).then(proceed, (error: unknown) => {
      if (typeof (error as BodyError)?.status !== "number") return void req.socket.destroy();
      (req as IncomingMessage & { [BODY_ERROR]?: unknown })[BODY_ERROR] = error;
      viaExpress(req, res);
    });
    return true;
  };
  const handler = (authorization && !accepted ? viaExpress : (req: IncomingMessage, res: ServerResponse) => void (direct(req, res) || viaExpress(req, res))) as McpHttpHandler;
  Object.defineProperty(handler, "sessions", { get: () => transports.size });
  handler.close = async () => {
    const open = [...transports.values()];
    transports.clear();
    await Promise.all([...open.map(({ transport }) => transport.close().catch(() => undefined)), modern.close()]);
  };
  return handler;
}
