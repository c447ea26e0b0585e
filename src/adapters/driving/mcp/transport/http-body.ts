/**
 * The JSON body of an MCP POST (MCP-11), read once before authorization and routing: the scopes a
 * request needs (http-scopes.ts), its tenant admission (http-admission.ts) and the revision that
 * serves it (http-modern.ts) all depend on it, and the SDK's transports then take it parsed. Read
 * by the shared reader of the gateway and the configuration server (size and nesting limits).
 */
import type { IncomingMessage } from "node:http";
import { parseJsonText, readBodyText, type BodyRefusal } from "../../shared/json-body.js";
import { jsonRpcErrorResponse } from "./http-web.js";

/** The largest POST body the endpoint reads (100 kb, the limit it has always had). */
export const MAX_JSON_BODY_BYTES = 100 * 1024;

/** A refused body: its answer. */
class BodyRefused extends Error {
  constructor(readonly response: Response) {
    super("refused");
  }
}

// JSON-RPC's parse error for a body that is not JSON; invalid request for one that breaks off or is too large.
const refuse: BodyRefusal = (status, code, message) => new BodyRefused(jsonRpcErrorResponse(status, code === "invalid_json" ? -32700 : -32600, `${code === "invalid_json" ? "Parse error" : "Invalid Request"}: ${message}`));

/** Whether a POST's headers announce a plain UTF-8 JSON body (no content encoding). */
function plainJson(req: IncomingMessage): boolean {
  const [mime = "", ...params] = (req.headers["content-type"] ?? "").split(";");
  if (mime.trim().toLowerCase() !== "application/json") return false;
  const charset = params.map((param) => param.split("=")).find(([name]) => name?.trim().toLowerCase() === "charset")?.[1];
  return charset === undefined || charset.trim().replace(/^"|"$/g, "").toLowerCase() === "utf-8";
}

/**
 * The parsed body of an MCP POST (`undefined` for GET and DELETE), or the `Response` refusing it:
 * not UTF-8 `application/json` or content-encoded (415, as the SDK's transport answers it), over
 * {@link MAX_JSON_BODY_BYTES} (413), malformed or too deeply nested JSON (400, JSON-RPC parse error).
 *
 * @example
 * const body = await readMcpBody(req);
 * if (body instanceof Response) return sendWebResponse(res, body);
 */
export async function readMcpBody(req: IncomingMessage): Promise<unknown> {
  if (req.method !== "POST") return undefined;
  const encoding = req.headers["content-encoding"];
  if (encoding !== undefined && encoding.toLowerCase() !== "identity") return jsonRpcErrorResponse(415, -32000, `Unsupported Media Type: send the body without a content encoding (got ${JSON.stringify(encoding)})`);
  if (!plainJson(req)) return jsonRpcErrorResponse(415, -32000, "Unsupported Media Type: Content-Type must be application/json (UTF-8)");
  try {
    const text = await readBodyText(req, MAX_JSON_BODY_BYTES, refuse);
    // A leading byte-order mark is not JSON, but editors and some clients write one.
    return parseJsonText(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, refuse);
  } catch (error) {
    if (error instanceof BodyRefused) return error.response;
    throw error;
  }
}
