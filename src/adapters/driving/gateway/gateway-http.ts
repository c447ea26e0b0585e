/**
 * The HTTP plumbing of the OpenAI gateway (GW-4): OpenAI's error shape, JSON bodies read under a
 * size limit (shared with the configuration server), server-sent events and the bearer check. Node's `http` module is
 * enough for two JSON routes and SSE; a framework would add a dependency and nothing we use.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseJsonText, readBodyText, type BodyRefusal } from "../shared/json-body.js";
import type { RateLimit } from "../shared/rate-limit.js";

/** OpenAI's error body: `{ error: { message, type, param, code } }`. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** An error the gateway answers with an HTTP status and OpenAI's error body. */
export class GatewayHttpError extends Error {
  readonly status: number;
  readonly body: OpenAIErrorBody;
  readonly headers: Record<string, string>;
  /** The failure was logged where it happened (a failed run, DX-9): the request log does not repeat it. */
  readonly logged: boolean;

  constructor(status: number, message: string, options: { type?: string; param?: string | null; code?: string | null; headers?: Record<string, string>; logged?: boolean } = {}) {
    super(message);
    this.name = "GatewayHttpError";
    this.status = status;
    this.logged = options.logged ?? false;
    this.headers = options.headers ?? {};
    this.body = { error: { message, type: options.type ?? "invalid_request_error", param: options.param ?? null, code: options.code ?? null } };
  }
}

/**
 * Writes a JSON response.
 *
 * @example
 * sendJson(response, 200, { object: "list", data: [] });
 */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

/**
 * Writes a {@link GatewayHttpError} (or, for anything else, a 500 in OpenAI's shape). Does nothing
 * once headers went out: a stream reports its own errors as events.
 *
 * @example
 * sendError(response, new GatewayHttpError(404, "Unknown request URL", { code: "unknown_url" }));
 */
export function sendError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) return;
  const failure = error instanceof GatewayHttpError ? error : new GatewayHttpError(500, "The gateway failed to handle the request.", { type: "server_error", code: "internal" });
  sendJson(response, failure.status, failure.body, failure.headers);
}

/** The gateway's refusals of a body, in OpenAI's error shape. */
const refuseBody: BodyRefusal = (status, code, message) => new GatewayHttpError(status, message, { code });

/**
 * Reads and parses a JSON request body of at most `limit` bytes (src/adapters/driving/shared/json-body.ts):
 * 413 when larger, 400 for malformed or too deeply nested JSON, 415 for a body that does not
 * declare JSON.
 *
 * @example
 * const body = await readJsonBody(request, 1024 * 1024);
 */
export async function readJsonBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const type = request.headers["content-type"] ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new GatewayHttpError(415, "The request body must be JSON (Content-Type: application/json).", { code: "unsupported_media_type" });
  }
  return parseJsonText(await readBodyText(request, limit, refuseBody), refuseBody);
}

/** Writes server-sent events on a response. */
export interface SseWriter {
  /** Sends one event; `event` names it (`event:` line) when given. False once the client left. */
  send(data: unknown, event?: string): boolean;
  /** Sends one event whose data is already JSON text. */
  sendJson(json: string, event?: string): boolean;
  /** Sends a raw `data:` line (Chat Completions' `[DONE]`). */
  sendRaw(data: string): boolean;
  /** Writes what is joined so far now, not at the end of the tick (the first token). */
  flush(): void;
  end(): void;
}

/**
 * Starts an SSE response (`text/event-stream`, no buffering by proxies). Events produced in one
 * tick (a model streaming faster than the socket) are joined into one string and sent as one
 * `write` — one chunk of the chunked body, one syscall — at the end of the tick, or at once on
 * `flush` (the APIs flush their first text delta, so time to first token does not wait for the
 * tick); `end` sends what is left with the response's end. The headers go out with the first events (sent in the tick the
 * stream starts), not in a packet of their own.
 *
 * @example
 * const sse = startSse(response);
 * sse.send({ type: "response.created", … }, "response.created");
 */
export function startSse(response: ServerResponse): SseWriter {
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no" });
  let buffered = "";
  const gone = (): boolean => response.destroyed || response.writableEnded;
  const flush = (): void => {
    const text = buffered;
    buffered = "";
    if (text !== "" && !gone()) response.write(text);
  };
  const write = (text: string): boolean => {
    if (gone()) return false;
    if (buffered === "") process.nextTick(flush);
    buffered += text;
    return true;
  };
  return {
    send: (data, event) => write(`${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`),
    sendJson: (json, event) => write(`${event === undefined ? "" : `event: ${event}\n`}data: ${json}\n\n`),
    sendRaw: (data) => write(`data: ${data}\n\n`),
    flush,
    end: () => {
      if (response.writableEnded) return;
      const text = buffered;
      buffered = "";
      if (response.destroyed) return void response.end();
      response.end(text);
    },
  };
}

const digest = (text: string): Buffer => createHash("sha256").update(text).digest();

/**
 * A bearer-token check in constant time (SHA-256 digests, so neither content nor length leaks).
 *
 * @example
 * const check = bearerCheck(token);
 * if (!check(request.headers.authorization)) throw new GatewayHttpError(401, …);
 */
export function bearerCheck(token: string): (header: string | undefined) => boolean {
  const expected = digest(`Bearer ${token}`);
  return (header) => timingSafeEqual(digest(header ?? ""), expected);
}

/**
 * The rate limit: at most `requests` in each window of `windowMs`, counted for the token and,
 * for requests without it, per client address (SEC-7).
 */
export type GatewayRateLimit = RateLimit;
