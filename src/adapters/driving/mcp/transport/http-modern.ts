/**
 * MCP-17: the 2026-07-28 revision on the same Streamable HTTP endpoint as 2025-11-25 (MCP-18).
 * A request of that revision carries its protocol version, client info and capabilities in its
 * own `_meta`: there is no `initialize` and no session, so every request is answered by a fresh
 * server of the same factory (`createServer`) on the SDK's per-request transport
 * (`createMcpHandler`, strict: `legacy: "reject"`), and any host serving the project answers any
 * request. The SDK checks the envelope, the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * headers against the body and answers `server/discover`.
 *
 * Which leg serves a request is the SDK's own classification (`classifyInboundRequest`, the step
 * `isLegacyRequest` wraps, read off the node request: no web `Request` is built for it); a request
 * without an envelope claim (the `initialize` handshake, a session's requests, GET and DELETE)
 * keeps the 2025-11-25 sessions of http-handler.ts. Host and Origin checks and authorization run
 * before either leg, and the verified `AuthInfo` (the tenancy principal, TEN-1) reaches every
 * request's handlers as `ctx.http.authInfo`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { classifyInboundRequest, createMcpHandler, PROTOCOL_VERSION_META_KEY, type AuthInfo, type Server, type Transport } from "@modelcontextprotocol/server";
import type { McpServerHandle } from "../../../../ports/mcp-server.js";
import { refuseParamHeaders, type ParamHeader } from "./http-param-headers.js";

/** The `_meta` key prefix of the revision's per-request envelope. */
const ENVELOPE_PREFIX = "io.modelcontextprotocol/";

/** The 2026-07-28 leg of an endpoint: {@link createModernLeg}. */
export interface ModernLeg {
  /** Whether the request is the revision's (the SDK's classification); cheap looks first, so most requests are not classified twice. */
  claims(req: IncomingMessage, body: unknown): boolean;
  /**
   * Answers one request of the revision: `request` is its web `Request` (the endpoint's one per
   * request, aborted when the client goes away), `auth` the verified caller (none without
   * authorization). Given the node response `res`, a request answered with one JSON result is
   * written to it as the result leaves the server ({@link answerOnNode}); the `Response` then
   * resolved is the SDK's copy, for a caller that finds `res.headersSent` to drop.
   */
  serve(request: Request, body: unknown, auth: AuthInfo | undefined, res?: ServerResponse): Promise<Response>;
  /** Aborts the requests in flight. */
  close(): Promise<void>;
}

/**
 * MCP-20: answers the `subscriptions/listen` requests it serves (a stream of task notifications
 * read from the shared store, tasks/task-listen.ts) and `undefined` for every other request.
 */
export type ModernListen = (body: unknown, auth: AuthInfo | undefined, signal: AbortSignal) => Response | undefined;

/** MCP-17: the params of a tool mirrored in `Mcp-Param-*` headers (http-param-headers.ts); none for a tool it does not know. */
export type ModernParamHeaders = (tool: string) => readonly ParamHeader[] | Promise<readonly ParamHeader[]>;

/** Whether a body or the version header might claim a modern revision (the envelope or a version no 2024/2025 client sends). */
function mightClaim(req: IncomingMessage, body: unknown): boolean {
  const header = req.headers["mcp-protocol-version"];
  if (typeof header === "string" && !header.startsWith("2024-") && !header.startsWith("2025-")) return true;
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    const meta = (message as { params?: { _meta?: unknown } } | null)?.params?._meta;
    return typeof meta === "object" && meta !== null && Object.keys(meta).some((key) => key.startsWith(ENVELOPE_PREFIX));
  });
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Whether the SDK's classification answers "not legacy" for `body` whatever else it checks: one
 * message (no batch, no response) with a method other than `initialize` whose `params._meta`
 * holds the envelope claim (`hasEnvelopeClaim`). The SDK then routes it to the modern leg or
 * answers a ladder rejection, which is also the modern leg's — so the common request skips a
 * schema-parsing classification the leg's handler runs again anyway.
 */
function claimsAtOnce(body: unknown): boolean {
  if (!isPlainObject(body) || typeof body.method !== "string" || body.method === "initialize" || "result" in body || "error" in body) return false;
  const params = body.params;
  return isPlainObject(params) && isPlainObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta;
}

/**
 * Makes `server` write the JSON result of request `id` to `res` the moment it leaves the server,
 * before the SDK's transport wraps it in a web `Response` that the endpoint would read back and
 * copy to `res` (a body stream built, read and copied, and several promise turns, on every call's
 * way out). Only a result goes this way, and only while nothing else was sent for the request: a
 * related message first (progress, a log) makes the SDK answer as a stream, and an error may
 * carry the validation ladder's own HTTP status — both stay the SDK's. The SDK still settles its
 * exchange as before (its `Response` is dropped, `res` being answered).
 */
function answerOnNode(server: Server, res: ServerResponse, id: string | number): void {
  const connect = server.connect.bind(server);
  server.connect = (transport: Transport) => {
    const send = transport.send.bind(transport);
    let streamed = false;
    transport.send = (message, options) => {
      if (!streamed && "result" in message && message.id === id && !res.headersSent) {
        const body = Buffer.from(JSON.stringify(message));
        res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) }).end(body);
      } else streamed = true;
      return send(message, options);
    };
    return connect(transport);
  };
}

/**
 * The 2026-07-28 leg of a Streamable HTTP endpoint, answering each request with a fresh server
 * from `createServer` (the same factory as the 2025-11-25 sessions, so both revisions publish the
 * same tools, prompts and resources).
 *
 * @example
 * const modern = createModernLeg(() => createWorkflowMcpServer(manifest, runner, catalog, tasks, options));
 * if (modern.claims(req, body)) return modern.serve(webRequest(req, gone.signal), body, req.auth);
 */
export function createModernLeg(createServer: (revision: "2026-07-28") => McpServerHandle | Promise<McpServerHandle>, listen?: ModernListen, paramHeaders?: ModernParamHeaders): ModernLeg {
  // The handle is the SDK's own Server (the port hides it from the rest of the library).
  // The node responses of the requests in flight that a server may answer itself (answerOnNode).
  const direct = new WeakMap<Request, { res: ServerResponse; id: string | number }>();
  const handler = createMcpHandler(
    async ({ requestInfo }) => {
      const server = (await createServer("2026-07-28")) as unknown as Server;
      const target = requestInfo && direct.get(requestInfo);
      if (target) answerOnNode(server, target.res, target.id);
      return server;
    },
    { legacy: "reject" },
  );
  return {
    claims(req, body) {
      if (req.method !== "POST" || body === undefined) return false;
      if (claimsAtOnce(body)) return true;
      if (!mightClaim(req, body)) return false;
      // The SDK's classification step itself (what `isLegacyRequest` runs), on the node headers.
      const header = (name: string) => {
        const value = req.headers[name];
        return typeof value === "string" ? value : undefined;
      };
      return classifyInboundRequest({ httpMethod: "POST", protocolVersionHeader: header("mcp-protocol-version"), mcpMethodHeader: header("mcp-method"), mcpNameHeader: header("mcp-name"), body }).kind !== "legacy";
    },
    // A client that goes away aborts `request`: the SDK then cancels the handler (and the run).
    serve: async (request, body, auth, res) => {
      // SEP-2243: a call whose Mcp-Param-* headers disagree with its arguments is refused before it runs.
      const refused = (paramHeaders && (await refuseParamHeaders(body, request.headers, paramHeaders))) ?? listen?.(body, auth, request.signal);
      if (refused) return refused;
      const id = isPlainObject(body) ? body.id : undefined;
      if (res && (typeof id === "string" || typeof id === "number")) direct.set(request, { res, id });
      return handler.fetch(request, { parsedBody: body, ...(auth ? { authInfo: auth } : {}) });
    },
    close: () => handler.close(),
  };
}
