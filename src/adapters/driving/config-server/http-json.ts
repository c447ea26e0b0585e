/** JSON in and out of node:http for the configuration server (CFG-4). */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { SteamharnessError } from "../../../domain/errors.js";
import { parseJsonText, readBodyText, type BodyRefusal } from "../shared/json-body.js";

/** The server's refusals of a body: `input_validation` on `body`, with the HTTP status (413 or 400). */
const refuseBody: BodyRefusal = (status, _code, message) => new SteamharnessError("input_validation", `[steamharness] [config-server] ${message}`, { field: "body", data: { status } });

/**
 * The request body as JSON (`undefined` for an empty body), read under the shared limits
 * (src/adapters/driving/shared/json-body.ts): larger than `limit` bytes → `input_validation` answered
 * with 413; not JSON, nested too deep, or not `application/json` → `input_validation` (400).
 *
 * @example
 * const body = await readJsonBody(request, 8 * 1024 * 1024);
 */
export async function readJsonBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const text = await readBodyText(request, limit, refuseBody);
  if (text.length === 0) return undefined;
  if (!/^application\/json\b/i.test(request.headers["content-type"] ?? "")) {
    throw new SteamharnessError("input_validation", "[steamharness] [config-server] send the body as application/json", { field: "body" });
  }
  return parseJsonText(text, refuseBody);
}

/**
 * Writes one JSON answer (never after the headers went out).
 *
 * @example
 * sendJson(response, 200, overview);
 */
export function sendJson(response: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent) return;
  const text = JSON.stringify(payload ?? null);
  response.writeHead(status, { ...headers, "content-type": "application/json; charset=utf-8", "content-length": String(Buffer.byteLength(text)), "cache-control": "no-store" });
  response.end(text);
}

/**
 * Stops listening and drops open (keep-alive) connections.
 *
 * @example
 * await closeHttpServer(server);
 */
export function closeHttpServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
