/**
 * The chat route on `steamharness gateway` (issue 45): `/v1/ui/chat` requests, already admitted
 * by the gateway's guard (token or API key, rate limits), handed to the Web-standard handlers of
 * ui-chat.ts with the request's tenant, and their responses written back to `node:http`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { GatewayHttpError, readJsonBody } from "./gateway-http.js";
import type { Principal } from "../../../domain/principal.js";
import { withParsedBody, type UiChatHandlers } from "./ui-chat.js";

/** The path prefix of the chat route. */
export const UI_CHAT_PATH = "/v1/ui/chat";

/**
 * Serves one chat-route request of `principal` (`path` without query or trailing slash). Resolves
 * once the response ended; a client that leaves ends the read of the log, never the turn.
 *
 * @example
 * if (path.startsWith(UI_CHAT_PATH)) return serveUiChat(chat, request, response, path, principal, maxBodyBytes, principals);
 */
export async function serveUiChat(handlers: UiChatHandlers, request: IncomingMessage, response: ServerResponse, path: string, principal: Principal, maxBodyBytes: number, principals: WeakMap<Request, Principal>): Promise<void> {
  const method = request.method ?? "GET";
  const url = `http://${request.headers.host ?? "127.0.0.1"}${request.url ?? "/"}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
  let web: Request;
  let handler: (request: Request) => Promise<Response>;
  if (method === "POST" && path === UI_CHAT_PATH) {
    // The gateway's body limits and JSON checks (413, 415, 400) apply as on every route.
    // Read and parsed once, here: the handler checks the parsed body (not serialised and parsed again).
    web = withParsedBody(new Request(url, { method, headers }), await readJsonBody(request, maxBodyBytes));
    handler = handlers.POST;
  } else if (method === "GET" && /^\/v1\/ui\/chat\/[^/]+\/stream$/.test(path)) {
    web = new Request(url, { method, headers });
    handler = handlers.GET;
  } else if (method === "POST" && /^\/v1\/ui\/chat\/[^/]+\/fork$/.test(path)) {
    web = new Request(url, { method, headers, body: JSON.stringify(await readJsonBody(request, maxBodyBytes)) });
    handler = handlers.fork;
  } else if (method === "POST" && /^\/v1\/ui\/chat\/[^/]+\/stop$/.test(path)) {
    web = new Request(url, { method, headers });
    handler = handlers.stop;
  } else throw new GatewayHttpError(404, `Unknown request URL: ${method} ${path}.`, { code: "unknown_url" });
  principals.set(web, principal);
  const answer = await handler(web);
  const head: Record<string, string> = {};
  answer.headers.forEach((value, name) => (head[name] = value));
  response.writeHead(answer.status, head);
  if (!answer.body) return void response.end();
  // The stream's first chunk (`start`) waits for the turn's first step: the client learns at once that its turn is accepted —
  // a loop turn later (UI-1), so a turn's setup reaches its model request first; the headers go out with a chunk sent before.
  let wrote = false;
  setImmediate(() => wrote || response.destroyed || response.flushHeaders());
  const reader = answer.body.getReader();
  const left = () => void reader.cancel().catch(() => undefined);
  response.once("close", left);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || response.destroyed) break;
      wrote = true;
      response.write(value);
    }
  } finally {
    response.off("close", left);
    await reader.cancel().catch(() => undefined);
    response.end();
  }
}
