/**
 * Capability-level paging (CAP-7). Store cursors may be longer than the 80-code-point cursor
 * limit (a keyset cursor embeds a key of up to 500 characters), so the capabilities page by
 * offset and hand out their own short cursors: `<offset>.<check>`, where `check` is a hash of the
 * listing the cursor belongs to (action, project, scope, prefix or query) and the offset. A
 * cursor edited by hand, or passed to another listing, fails the check and is refused with
 * `input_validation` — never reinterpreted. The hash names, it does not protect: a cursor is
 * not a secret and grants nothing the caller could not list anyway.
 *
 * Memory wraps these cursors as `list:<cursor>` and `search:<cursor>` so a cursor from the other
 * action is refused with an explicit message.
 */
import type { Page } from "../../ports/page.js";
import { stableHash } from "../stable-hash.js";
import { invalid } from "./validate-args.js";

const MAX_OFFSET = 1_000_000_000;
const STORE_PAGE = 500;

/**
 * The cursor for `offset` within the listing named by `binding`.
 *
 * @example
 * encodeOffsetCursor("kv-list\u0000p1\u0000project\u0000notes.", 20) // "20.3f9c0a1b2c4d"
 */
export function encodeOffsetCursor(binding: string, offset: number): string {
  return `${offset}.${checkOf(binding, offset)}`;
}

/**
 * The offset a cursor names, or throws `input_validation` (field `cursor`) when it is malformed
 * or belongs to another listing. An absent cursor is offset 0.
 *
 * @example
 * decodeOffsetCursor(binding, encodeOffsetCursor(binding, 20)) // 20
 */
export function decodeOffsetCursor(binding: string, cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^(0|[1-9][0-9]{0,9})\.([0-9a-f]{12})$/.exec(cursor);
  if (!match) throw invalid("cursor", "cursor is malformed: pass back a nextCursor exactly as it was returned", { reason: "malformed" });
  const offset = Number(match[1]);
  if (offset > MAX_OFFSET || match[2] !== checkOf(binding, offset)) {
    throw invalid("cursor", "cursor does not belong to this listing (edited, or from another action, query, scope or prefix)", {
      reason: "mismatch",
    });
  }
  return offset;
}

/** The two kinds of memory cursor. */
export type MemoryCursorKind = "list" | "search";

/**
 * Strips the `list:` / `search:` prefix of a memory cursor, refusing a cursor of the other
 * action explicitly.
 *
 * @example
 * unwrapMemoryCursor("list:20.3f9c0a1b2c4d", "list") // "20.3f9c0a1b2c4d"
 * unwrapMemoryCursor("list:20.3f9c0a1b2c4d", "search") // throws input_validation
 */
export function unwrapMemoryCursor(cursor: string | undefined, kind: MemoryCursorKind): string | undefined {
  if (cursor === undefined) return undefined;
  const other: MemoryCursorKind = kind === "list" ? "search" : "list";
  if (cursor.startsWith(`${other}:`)) {
    throw invalid("cursor", `cursor comes from action ${other} and cannot be used with action ${kind}`, { reason: "other_action" });
  }
  if (!cursor.startsWith(`${kind}:`)) throw invalid("cursor", `cursor must start with ${kind}:`, { reason: "malformed" });
  return cursor.slice(kind.length + 1);
}

/** One page of a capability listing. */
export interface OffsetPage<T> {
  items: T[];
  /** The offset of the next page, or `null` on the last page. */
  nextOffset: number | null;
}

/**
 * Reads `limit` items starting at `offset` from a keyset-paginated store listing, paging through
 * the store as far as needed (cost grows with the offset; capability listings are short).
 *
 * @example
 * const page = await readRange((cursor, limit) => store.list(projectId, { cursor, limit }), 40, 20);
 */
export async function readRange<T>(
  fetchPage: (cursor: string | null, limit: number) => Promise<Page<T>>,
  offset: number,
  limit: number,
): Promise<OffsetPage<T>> {
  const wanted = offset + limit + 1;
  const collected: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await fetchPage(cursor, Math.min(STORE_PAGE, wanted - collected.length));
    collected.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null && collected.length < wanted);
  const items = collected.slice(offset, offset + limit);
  const more = collected.length > offset + limit;
  return { items, nextOffset: more ? offset + limit : null };
}

function checkOf(binding: string, offset: number): string {
  return stableHash(`steamharness-cursor\u0000${binding}\u0000${offset}`).slice(0, 12);
}
