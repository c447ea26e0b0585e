/**
 * Sort keys shared by the SQL row drivers: a string's UTF-16BE bytes. SQLite BLOBs and PostgreSQL
 * `bytea` compare with memcmp, which on UTF-16BE equals the UTF-16 code-unit order the ports
 * promise (text would compare by UTF-8 or by collation). Plain `Uint8Array`s: both drivers bind
 * them as binary, and the kernel stays free of Node's `Buffer`.
 */
import type { Sql, SqlOperators } from "./sql-driver.js";

/**
 * The sort key of a string: its UTF-16BE bytes.
 *
 * @example
 * sortKey("a"); // Uint8Array [0x00, 0x61]
 */
export function sortKey(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    bytes[2 * i] = unit >>> 8;
    bytes[2 * i + 1] = unit & 0xff;
  }
  return bytes;
}

/**
 * The string a {@link sortKey} was made from.
 *
 * @example
 * fromSortKey(sortKey("é")); // "é"
 */
export function fromSortKey(key: Uint8Array): string {
  let text = "";
  // Chunks keep String.fromCharCode's argument list short for long keys.
  for (let start = 0; start < key.length; start += 8192) {
    const units: number[] = [];
    for (let i = start; i + 1 < key.length && i < start + 8192; i += 2) units.push((key[i] << 8) | key[i + 1]);
    text += String.fromCharCode(...units);
  }
  return text;
}

/**
 * The byte range `[low, high)` of every sort key starting with `prefix`'s; `high` is `null` when
 * the range is unbounded above (empty prefix or all-0xFF bytes).
 *
 * @example
 * prefixRange("a/"); // { low: <00 61 00 2f>, high: <00 61 00 30> }
 */
export function prefixRange(prefix: string): { low: Uint8Array; high: Uint8Array | null } {
  const low = sortKey(prefix);
  const high = low.slice();
  for (let i = high.length - 1; i >= 0; i--) {
    if (high[i] !== 0xff) {
      high[i]++;
      return { low, high: high.subarray(0, i + 1) };
    }
  }
  return { low, high: null };
}

/**
 * The conditions on a sort-key column of a keyset page: keys starting with `prefix`, strictly
 * after `after` when given, and not starting with `excludePrefix` (when non-empty), built with the
 * row driver's drizzle operators (the kernel loads no drizzle: SQLite loads it lazily, PERF-1).
 *
 * @example
 * db.select().from(kv).where(and(...keyRange(drizzleOrm(), kv.key, { prefix: "a/", after: "a/7" })));
 */
export function keyRange(ops: SqlOperators, column: Sql, range: { prefix: string; after?: string | undefined; excludePrefix?: string }): Sql[] {
  const conditions: Sql[] = [];
  if (range.prefix !== "") {
    const { low, high } = prefixRange(range.prefix);
    conditions.push(ops.gte(column, low));
    if (high !== null) conditions.push(ops.lt(column, high));
  }
  if (range.after !== undefined) conditions.push(ops.gt(column, sortKey(range.after)));
  if (range.excludePrefix) {
    const { low, high } = prefixRange(range.excludePrefix);
    conditions.push(high === null ? ops.lt(column, low) : ops.or(ops.lt(column, low), ops.gte(column, high)));
  }
  return conditions;
}
