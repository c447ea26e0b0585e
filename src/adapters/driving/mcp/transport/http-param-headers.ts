/**
 * MCP-17: the custom request headers of the 2026-07-28 revision (SEP-2243). A tool's input
 * schema may mark a top-level property `x-mcp-header: "<Name>"` (an entrypoint param's `header`);
 * a client then mirrors that argument in an `Mcp-Param-<Name>` header so gateways can route
 * without reading the body, and the server must refuse a call whose header disagrees with the
 * body: missing while the argument is present, an invalid `=?base64?…?=` value, or another value.
 *
 * The SDK performs this check only for its high-level `McpServer` (its helpers are internal), and
 * we serve the low-level `Server` (MCP-7), so the comparison is written here, after the spec text.
 */

/** One argument mirrored in a header: the property and the header's `<Name>`. */
export interface ParamHeader {
  property: string;
  header: string;
}

/** Canonical padded Base64 (the revision refuses a sentinel value that is not). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const DECIMAL = /^-?\d+(\.\d+)?$/;
/** The revision's `HeaderMismatch` error code (the SDK keeps its constant internal). */
export const HEADER_MISMATCH = -32020;

/**
 * The `x-mcp-header` declarations of a tool's input schema (its top-level properties: an
 * entrypoint's schema is flat).
 *
 * @example
 * paramHeadersOf({ type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } })
 * // [{ property: "region", header: "Region" }]
 */
export function paramHeadersOf(inputSchema: { properties?: Record<string, unknown> } | undefined): ParamHeader[] {
  return Object.entries(inputSchema?.properties ?? {}).flatMap(([property, schema]) => {
    const header = (schema as { "x-mcp-header"?: unknown } | null)?.["x-mcp-header"];
    return typeof header === "string" ? [{ property, header }] : [];
  });
}

/** A header value as the revision reads it: a Base64 sentinel decoded (UTF-8), anything else literal; `undefined` when the sentinel's payload is not canonical Base64 or UTF-8. */
function decodeHeader(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX) && value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length)) return value;
  const payload = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(payload, "base64"));
  } catch {
    return undefined;
  }
}

/**
 * Why a call's `Mcp-Param-*` headers disagree with its arguments, or `undefined` when they agree.
 * An argument that is absent or `null` needs no header (a header sent anyway is ignored); a
 * present one needs its header, equal to the argument's text (`true`/`false`, decimal numbers).
 *
 * @example
 * paramHeaderMismatch([{ property: "region", header: "Region" }], { region: "eu" }, new Headers({ "mcp-param-region": "=?base64?ZXU=?=" })) // undefined
 * paramHeaderMismatch([{ property: "region", header: "Region" }], { region: "eu" }, new Headers()) // "the body carries region but the Mcp-Param-Region header is absent"
 */
export function paramHeaderMismatch(declared: readonly ParamHeader[], args: unknown, headers: Headers): string | undefined {
  for (const { property, header } of declared) {
    const value = (args as Record<string, unknown> | null | undefined)?.[property];
    if (value === undefined || value === null || typeof value === "object") continue;
    const name = `Mcp-Param-${header}`;
    // A repeated header reads as its values joined by ", " (as node joins them), which no valid value is.
    const sent = headers.get(name);
    if (sent === null) return `the body carries ${property} but the ${name} header is absent`;
    const decoded = decodeHeader(sent.trim());
    if (decoded === undefined) return `the ${name} header carries an invalid Base64 value`;
    // Numbers compare as numbers (`42.0` is 42), as the revision asks.
    const equal = typeof value === "number" && DECIMAL.test(decoded) ? Number(decoded) === value : decoded === String(value);
    if (!equal) return `the ${name} header does not match the body's ${property}`;
  }
  return undefined;
}

/**
 * The 400 / `HeaderMismatch` answer to a 2026-07-28 `tools/call` whose `Mcp-Param-*` headers
 * disagree with its arguments, before anything runs; `undefined` for every other request.
 * `declaredOf` names the mirrored params of a tool (none for a tool it does not know).
 *
 * @example
 * const refused = await refuseParamHeaders(body, request.headers, async (tool) => paramHeadersOf(schemaOf(tool)));
 * if (refused) return refused;
 */
export async function refuseParamHeaders(body: unknown, headers: Headers, declaredOf: (tool: string) => readonly ParamHeader[] | Promise<readonly ParamHeader[]>): Promise<Response | undefined> {
  const request = body as { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
  if (request?.method !== "tools/call" || typeof request.params?.name !== "string") return undefined;
  const declared = await declaredOf(request.params.name);
  const mismatch = declared.length === 0 ? undefined : paramHeaderMismatch(declared, request.params.arguments, headers);
  if (mismatch === undefined) return undefined;
  const error = { code: HEADER_MISMATCH, message: `Bad Request: the request headers and body disagree: ${mismatch}` };
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: request.id ?? null, error }), { status: 400, headers: { "content-type": "application/json" } });
}
