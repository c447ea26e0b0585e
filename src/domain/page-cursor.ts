/**
 * Opaque keyset cursors. A cursor names the listing it belongs to (a hash of scope, prefix, query
 * and filters) and the position after which the next page starts, plus a checksum so that an
 * edited or truncated cursor is refused instead of silently returning a wrong page.
 */
import { SteamharnessError } from "./errors.js";
import type { JsonValue } from "./json.js";
import { STORE_LIMITS } from "./limits.js";
import { canonicalJson, stableHash } from "./stable-hash.js";

const VERSION = 1;
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

function toBase64Url(text: string): string {
  const bytes = utf8Encoder.encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(encoded: string): string {
  const binary = atob(encoded.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return utf8Decoder.decode(bytes);
}

function invalidCursor(reason: string): SteamharnessError {
  return new SteamharnessError("input_validation", `[steamharness] invalid cursor: ${reason}`, { field: "cursor" });
}

/**
 * Identifies one listing (what is listed, in which scope, with which prefix/query/filters) so a
 * cursor cannot be replayed against another listing.
 *
 * @example
 * const listing = listingId({ kind: "kv", projectId: "p", prefix: "a/" });
 */
export function listingId(description: Record<string, JsonValue | undefined>): string {
  return stableHash(canonicalJson(description));
}

/**
 * Encodes the position after which the next page of `listing` starts.
 *
 * @example
 * const cursor = encodeCursor(listing, "last-key");
 */
export function encodeCursor(listing: string, position: JsonValue): string {
  const payload = toBase64Url(JSON.stringify({ v: VERSION, l: listing, p: position }));
  return `${payload}.${stableHash(`cursor|${payload}`).slice(0, 12)}`;
}

/**
 * Decodes a cursor made by {@link encodeCursor} for the same listing. A malformed, edited or
 * oversized cursor fails with `input_validation`; a cursor of another listing with
 * `cursor_mismatch`. `null`/`undefined` mean "first page" and yield `undefined`.
 *
 * @example
 * const after = decodeCursor(listing, options.cursor); // undefined on the first page
 */
export function decodeCursor(listing: string, cursor: unknown): JsonValue | undefined {
  if (cursor === undefined || cursor === null) return undefined;
  if (typeof cursor !== "string") throw invalidCursor("not a string");
  if (cursor.length === 0) throw invalidCursor("empty");
  if (cursor.length > STORE_LIMITS.cursor) throw invalidCursor(`longer than ${STORE_LIMITS.cursor} characters`);
  const dot = cursor.lastIndexOf(".");
  const payload = cursor.slice(0, dot);
  if (dot < 1 || stableHash(`cursor|${payload}`).slice(0, 12) !== cursor.slice(dot + 1)) {
    throw invalidCursor("checksum mismatch");
  }
  let decoded: { v?: unknown; l?: unknown; p?: JsonValue };
  try {
    decoded = JSON.parse(fromBase64Url(payload));
  } catch (cause) {
    throw new SteamharnessError("input_validation", "[steamharness] invalid cursor: undecodable", {
      field: "cursor",
      cause,
    });
  }
  if (typeof decoded !== "object" || decoded === null || decoded.v !== VERSION || decoded.p === undefined) {
    throw invalidCursor("unknown format");
  }
  if (decoded.l !== listing) {
    throw new SteamharnessError("cursor_mismatch", "[steamharness] cursor belongs to another listing", {
      field: "cursor",
    });
  }
  return decoded.p;
}

/**
 * {@link decodeCursor} for listings whose position is the last key returned (a string).
 *
 * @example
 * const afterKey = decodeKeyCursor(listing, options.cursor);
 */
export function decodeKeyCursor(listing: string, cursor: unknown): string | undefined {
  const position = decodeCursor(listing, cursor);
  if (position !== undefined && typeof position !== "string") throw invalidCursor("unknown position");
  return position;
}

/**
 * {@link decodeCursor} for ranked listings whose position is `[score, id]` of the last hit.
 *
 * @example
 * const after = decodeRankCursor(listing, options.cursor); // [12.5, "doc-3"] or undefined
 */
export function decodeRankCursor(listing: string, cursor: unknown): [number, string] | undefined {
  const position = decodeCursor(listing, cursor);
  if (position === undefined) return undefined;
  if (!Array.isArray(position) || position.length !== 2) throw invalidCursor("unknown position");
  const [score, id] = position;
  if (typeof score !== "number" || typeof id !== "string") throw invalidCursor("unknown position");
  return [score, id];
}
