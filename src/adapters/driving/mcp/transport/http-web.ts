/**
 * The bridge between `node:http` and the web-standard `Request`/`Response` the SDK's v2 HTTP
 * transports speak (MCP-16): both revisions' legs, the bearer check and the metadata documents
 * answer with a `Response`, and one function writes it to the node response — a streamed (SSE)
 * body frame by frame, so progress and results reach the client as they come.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The web `Request` of a node request: method, URL and headers; the body is handed to the SDK
 * parsed (`parsedBody`), so none is attached. `signal` aborts it (the client went away).
 *
 * @example
 * const request = webRequest(req, gone.signal);
 */
export function webRequest(req: IncomingMessage, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, { method: req.method ?? "POST", headers, ...(signal ? { signal } : {}) });
}

/**
 * Writes a web `Response` to a node response: a JSON body at once, any other streamed (SSE); `gone`
 * (the client closed the connection) cancels a streamed body, which the SDK reads as the client leaving.
 *
 * @example
 * await sendWebResponse(res, await transport.handleRequest(request, { parsedBody }), gone.signal);
 */
export async function sendWebResponse(res: ServerResponse, response: Response, gone?: AbortSignal): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => void (headers[name] = value));
  // Headers joins repeated set-cookie values; none of the SDK's answers sets any, but keep them apart.
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 1) headers["set-cookie"] = cookies;
  if (!response.body) return void res.writeHead(response.status, headers).end();
  if (response.headers.get("content-type")?.startsWith("application/json")) {
    // A JSON answer is complete already: headers and body leave in one write (no chunked
    // encoding, whose closing chunk is a second write that wakes the client a second time).
    const body = Buffer.from(await response.arrayBuffer());
    headers["content-length"] = String(body.length);
    return void res.writeHead(response.status, headers).end(body);
  }
  res.writeHead(response.status, headers);
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  if (gone?.aborted) cancel();
  else gone?.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The body failed or was cancelled: the connection ends below either way.
  } finally {
    gone?.removeEventListener("abort", cancel);
    res.end();
  }
}

/**
 * A JSON-RPC error answer with no id (the request was refused before any message was read).
 *
 * @example
 * return jsonRpcErrorResponse(404, -32001, "Session not found");
 */
export function jsonRpcErrorResponse(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: { "content-type": "application/json", ...headers } });
}
