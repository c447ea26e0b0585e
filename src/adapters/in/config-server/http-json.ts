/** JSON in and out of node:http for the configuration server (CFG-4). */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { SteamharnessError } from "../../../domain/errors.js";

/**
 * The request body as JSON (`undefined` for an empty body). Larger than `limit` bytes, not
 * JSON, or not `application/json` → `input_validation` (field `body`).
 *
 * @example
 * const body = await readJsonBody(request, 8 * 1024 * 1024);
 */
export async function readJsonBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(request.headers["content-length"] ?? "0");
  const tooLarge = () => new SteamharnessError("input_validation", `[steamharness] [config-server] the body is larger than ${limit} bytes`, { field: "body" });
  if (declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  if (!/^application\/json\b/i.test(request.headers["content-type"] ?? "")) {
    throw new SteamharnessError("input_validation", "[steamharness] [config-server] send the body as application/json", { field: "body" });
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch (cause) {
    throw new SteamharnessError("input_validation", "[steamharness] [config-server] the body is not JSON", { field: "body", cause });
  }
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
