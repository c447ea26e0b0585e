/**
 * The JSON body of an MCP POST, read the way the SDK's Express app (`express.json()`) reads it,
 * for the direct path of http-handler.ts (MCP-11): the Express router and body-parser cost more
 * CPU per request than the SDK transport itself, and a loopback server without authorization
 * needs neither. Only the plain case is read here — `application/json`, UTF-8, no content
 * encoding; anything else is left to Express so it is answered exactly as before. The failures
 * the plain case can still meet (invalid JSON, over the limit, a short body) become errors shaped
 * like body-parser's, which Express answers as it answered them before.
 */
import type { IncomingMessage } from "node:http";
import { readBodyText } from "../../shared/json-body.js";

/** express.json()'s default body limit (100 kb). */
export const MAX_JSON_BODY_BYTES = 100 * 1024;

/** How a request's body is read: no body to parse, a plain JSON body, or one only Express reads. */
export type BodyKind = "none" | "json" | "express";

/** An error of the kind body-parser passes to Express (`status`, `type`; the message is exposed). */
export interface BodyError extends Error {
  status: number;
  statusCode: number;
  expose: boolean;
  type: string;
}

function bodyError(status: number, type: string, message: string): BodyError {
  return Object.assign(status === 400 && type === "entity.parse.failed" ? new SyntaxError(message) : new Error(message), { status, statusCode: status, expose: true, type });
}

/** body-parser's message for a body that is not an object or array: JSON.parse's own, about that character. */
function strictViolation(text: string, char: string | undefined): string {
  const index = char === undefined ? -1 : text.indexOf(char);
  const partial = index === -1 ? "" : text.slice(0, index) + "#".repeat(text.length - index);
  try {
    JSON.parse(partial);
  } catch (error) {
    return (error as Error).message.replace(/#+/g, (placeholder) => text.slice(index, index + placeholder.length));
  }
  return "strict violation";
}

/**
 * How body-parser's `json()` would treat `req`: `none` when it would leave the body alone (no
 * `content-length`/`transfer-encoding`, or a content type other than `application/json`),
 * `json` for a plain UTF-8 JSON body, `express` for what only it handles (a content encoding,
 * another charset, a declared length over the limit).
 *
 * @example
 * bodyKind(req) // "json" for `content-type: application/json` with a content-length
 */
export function bodyKind(req: IncomingMessage): BodyKind {
  const { headers } = req;
  if (headers["transfer-encoding"] === undefined && Number.isNaN(Number(headers["content-length"] ?? Number.NaN))) return "none";
  const type = headers["content-type"];
  if (type === undefined) return "none";
  const [mime = "", ...params] = type.split(";");
  if (mime.trim().toLowerCase() !== "application/json") return /json/i.test(mime) ? "express" : "none";
  for (const param of params) {
    const [name = "", value = ""] = param.split("=");
    if (name.trim().toLowerCase() === "charset" && value.trim().replace(/^"|"$/g, "").toLowerCase() !== "utf-8") return "express";
  }
  // A declared length over the limit: body-parser refuses it (413) before reading.
  if (Number(headers["content-length"] ?? 0) > MAX_JSON_BODY_BYTES) return "express";
  const encoding = headers["content-encoding"];
  return encoding === undefined || encoding.toLowerCase() === "identity" ? "json" : "express";
}

/**
 * Reads and parses a `json` body (see {@link bodyKind}) as body-parser does: at most
 * {@link MAX_JSON_BODY_BYTES}, a leading byte-order mark dropped, an empty body is `{}`, and in
 * strict mode only an object or array. Rejects with a {@link BodyError} (400 or 413) for what
 * body-parser refuses.
 *
 * @example
 * const body = await readJsonBody(req); // { jsonrpc: "2.0", id: 1, method: "ping" }
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  // One way to read a body (driving/shared/json-body.ts), refusals shaped like body-parser's. It
  // reads to the end even past the limit: Express answers only a request whose body is consumed.
  let text = await readBodyText(req, MAX_JSON_BODY_BYTES, (status) =>
    status === 413 ? bodyError(413, "entity.too.large", "request entity too large") : bodyError(400, "request.size.invalid", "request size did not match content length"),
  );
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  // Strict mode: only an object or an array (JSON whitespace before it).
  const first = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d])/.exec(text)?.[1];
  if (first !== "{" && first !== "[") throw bodyError(400, "entity.parse.failed", strictViolation(text, first));
  try {
    return JSON.parse(text);
  } catch (error) {
    throw bodyError(400, "entity.parse.failed", (error as Error).message);
  }
}
