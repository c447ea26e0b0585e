import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The header the page sends its token in; a custom header also makes every cross-site write a CORS preflight, which the viewer never grants. */
export const VIEWER_TOKEN_HEADER = "x-steamharness-token";

/** A refused request: its status and a short reason. */
export interface ViewerRefusal {
  status: 401 | 403 | 415;
  reason: string;
}

const sameToken = (given: string | undefined, token: string): boolean => {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * The viewer's request rules (VIEW-4), checked before any route:
 * - `Host` must be `127.0.0.1:<port>` or `localhost:<port>` (a DNS-rebound name is refused, 403);
 * - the token must come with the request (`?token=` or the token header), else 401;
 * - a write (any method but GET/HEAD) takes the token only from the header, must not be
 *   cross-site (`Sec-Fetch-Site` other than same-origin/none, or an `Origin` that is not the
 *   viewer's own, → 403) and must be JSON (415).
 * Resolves `null` when the request may proceed.
 *
 * @example
 * const refusal = checkViewerRequest(request, { token, port });
 * if (refusal) return reply(refusal.status, refusal.reason);
 */
export function checkViewerRequest(request: IncomingMessage, options: { token: string; port: number }): ViewerRefusal | null {
  const origins = [`127.0.0.1:${options.port}`, `localhost:${options.port}`];
  if (!origins.includes((request.headers.host ?? "").toLowerCase())) return { status: 403, reason: "unexpected Host header" };
  const url = new URL(request.url ?? "/", `http://${origins[0]}`);
  const header = request.headers[VIEWER_TOKEN_HEADER];
  const headerToken = Array.isArray(header) ? header[0] : header;
  const write = request.method !== "GET" && request.method !== "HEAD";
  if (write) {
    if (!sameToken(headerToken, options.token)) return { status: 401, reason: "missing or wrong token header" };
    const site = request.headers["sec-fetch-site"];
    if (site !== undefined && site !== "same-origin" && site !== "none") return { status: 403, reason: "cross-site request refused" };
    const origin = request.headers.origin;
    if (origin !== undefined && !origins.map((host) => `http://${host}`).includes(origin.toLowerCase())) return { status: 403, reason: "cross-origin request refused" };
    if (!(request.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")) return { status: 415, reason: "JSON body required" };
    return null;
  }
  if (!sameToken(headerToken ?? url.searchParams.get("token") ?? undefined, options.token)) return { status: 401, reason: "missing or wrong token" };
  return null;
}
