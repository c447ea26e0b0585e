/**
 * JSON request bodies under a size and a nesting limit (GW-4, SEC-7, TEN-7), shared by the
 * gateway and the configuration server; each passes `refuse`, which builds its own error shape.
 * An oversized body is read to its end and discarded before the refusal is answered: a server
 * that answers and closes while the client is still sending makes the client see a reset
 * instead of the 413 (the request timeout bounds how long a client may keep sending).
 */
import type { IncomingMessage } from "node:http";

/** The deepest nesting of arrays and objects a request body may have (the schemas need < 10). */
export const MAX_JSON_DEPTH = 128;

/** Why a body is refused: the HTTP status, a code, a sentence. */
export type BodyRefusal = (status: 400 | 413, code: "request_too_large" | "invalid_json" | "invalid_request_body", message: string) => Error;

/**
 * The body as text, at most `limit` bytes: larger (declared or streamed) → `refuse(413)` once the
 * client finished sending; a body that breaks off → `refuse(400)`.
 *
 * @example
 * const text = await readBodyText(request, 1024 * 1024, (status, code, message) => new MyHttpError(status, code, message));
 */
export function readBodyText(request: IncomingMessage, limit: number, refuse: BodyRefusal): Promise<string> {
  const declared = Number(request.headers["content-length"] ?? Number.NaN);
  // Listeners rather than `for await`: the stream's async iterator costs a promise per chunk and
  // more per request than the body it reads.
  return new Promise<string>((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let over = Number.isFinite(declared) && declared > limit;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) over = true;
      if (over) parts.length = 0; // discarded: only counted
      else parts.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      if (over) return reject(refuse(413, "request_too_large", `The request body exceeds the limit of ${limit} bytes.`));
      resolve(parts.length === 1 ? parts[0]!.toString("utf8") : Buffer.concat(parts).toString("utf8"));
    };
    const onError = (): void => {
      cleanup();
      reject(refuse(400, "invalid_request_body", "The request body could not be read."));
    };
    const onClose = (): void => {
      cleanup();
      reject(refuse(400, "invalid_request_body", "The request body ended early."));
    };
    const cleanup = (): void => {
      request.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    request.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

/**
 * Parses JSON text: nested deeper than {@link MAX_JSON_DEPTH} or malformed → `refuse(400, "invalid_json")`.
 *
 * @example
 * parseJsonText('{"a":1}', refuse) // { a: 1 }
 */
export function parseJsonText(text: string, refuse: BodyRefusal): unknown {
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) throw refuse(400, "invalid_json", `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw refuse(400, "invalid_json", "We could not parse the JSON body of your request. Send valid JSON.");
  }
}

/**
 * True when JSON text nests `[` and `{` (outside strings) deeper than `max`: a linear scan, no
 * parse. Deep bodies are refused before `JSON.parse`, which takes ~0.6 s for 1 MiB of `[` (SEC-7).
 */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++; // a backslash escapes the next character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}

/**
 * Reads the rest of a request's body and drops it (answering before the client finished sending
 * makes it see a reset, not the answer). Resolves at its end, or when the connection closes.
 *
 * @example
 * if (!request.complete) await discardBody(request);
 */
export function discardBody(request: IncomingMessage): Promise<void> {
  if (request.complete || request.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    request.once("end", resolve).once("close", resolve).once("error", resolve);
    request.resume();
  });
}
