/**
 * Sort keys shared by the SQL row drivers: a string's UTF-16BE bytes. SQLite BLOBs and PostgreSQL
 * `bytea` compare with memcmp, which on UTF-16BE equals the UTF-16 code-unit order the ports
 * promise (text would compare by UTF-8 or by collation). Plain `Uint8Array`s: both drivers bind
 * them as binary, and the kernel stays free of Node's `Buffer`.
 */

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

/** One condition on a sort-key column; a row driver turns it into its query language. */
export type KeyCondition =
  | { op: "gte" | "gt" | "lt"; key: Uint8Array }
  /** Below `low` or at/above `high` (`high` null: below `low` only). */
  | { op: "outside"; low: Uint8Array; high: Uint8Array | null };

/**
 * The conditions of a keyset page over sort keys: keys starting with `prefix`, strictly after
 * `after` when given, and not starting with `excludePrefix` (when non-empty).
 *
 * @example
 * keyConditions({ prefix: "a/", after: "a/7" }); // gte, lt and gt conditions
 */
export function keyConditions(range: { prefix: string; after?: string; excludePrefix?: string }): KeyCondition[] {
  const conditions: KeyCondition[] = [];
  if (range.prefix !== "") {
    const { low, high } = prefixRange(range.prefix);
    conditions.push({ op: "gte", key: low });
    if (high !== null) conditions.push({ op: "lt", key: high });
  }
  if (range.after !== undefined) conditions.push({ op: "gt", key: sortKey(range.after) });
  if (range.excludePrefix) conditions.push({ op: "outside", ...prefixRange(range.excludePrefix) });
  return conditions;
}
