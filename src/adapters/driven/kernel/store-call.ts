/**
 * How the kernel runs a row driver's step: each storage family supplies one {@link StoreCall}
 * that refuses calls on a closed store and maps the driver's faults once (SQLite: busy retries,
 * then `storage_failure`; PostgreSQL: `storage_failure`, or `input_validation` for a U+0000 in
 * text). The kernel itself never catches a driver error.
 */

import { encodeCursor } from "../../../domain/page-cursor.js";
import type { JsonValue } from "../../../domain/json.js";
import type { Page } from "../../../ports/page.js";

/** A value now or later: SQLite's row drivers answer synchronously, PostgreSQL's with promises. */
export type Awaitable<T> = T | Promise<T>;

/**
 * Runs one row step of the port operation `what` (e.g. `"kv get"`) under the family's fault
 * mapping. A synchronous step must stay synchronous inside (SQLite transactions cannot await).
 */
export type StoreCall = <T>(what: string, step: () => Awaitable<T>) => Promise<T>;

/**
 * The call of stores without faults to map (memory): runs the step as it is.
 *
 * @example
 * const kv = createKvStore(memoryKvRows(clock), directCall);
 */
export const directCall: StoreCall = async (_what, step) => step();

/**
 * A keyset page from the rows a listing read: rows asked for `limit + 1`, so one row more than
 * the page tells that another page follows, whose cursor continues after the page's last item.
 *
 * @example
 * return pageOf(found, limit, listing, (row) => row, (item) => item.documentId);
 */
export function pageOf<R, T>(found: readonly R[], limit: number, listing: string, item: (row: R) => T, position: (item: T) => JsonValue): Page<T> {
  const items = found.slice(0, limit).map(item);
  return { items, nextCursor: found.length > limit ? encodeCursor(listing, position(items[items.length - 1])) : null };
}
