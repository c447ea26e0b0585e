import { compareUtf16 } from "../../../domain/store-input.js";

/**
 * A sorted array of distinct strings (UTF-16 order) with binary-search insert, remove and
 * seek, so listings start in O(log n) instead of sorting or scanning the whole map.
 *
 * @example
 * const keys = new SortedKeys();
 * keys.add("b"); keys.add("a");
 * keys.at(keys.seek("a", true)); // "b"
 */
export class SortedKeys {
  private readonly keys: string[] = [];

  /** Number of keys. */
  get size(): number {
    return this.keys.length;
  }

  /**
   * Index of the first key ≥ `key` (or > `key` when `strict`).
   *
   * @example
   * keys.seek("b", true); // index of the first key after "b"
   */
  seek(key: string, strict = false): number {
    let low = 0;
    let high = this.keys.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const order = compareUtf16(this.keys[mid], key);
      if (order < 0 || (strict && order === 0)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The key at `index`, or `undefined` past the end. */
  at(index: number): string | undefined {
    return this.keys[index];
  }

  /** Adds `key` unless present. */
  add(key: string): void {
    const index = this.seek(key);
    if (this.keys[index] !== key) this.keys.splice(index, 0, key);
  }

  /** Removes `key` if present. */
  remove(key: string): void {
    const index = this.seek(key);
    if (this.keys[index] === key) this.keys.splice(index, 1);
  }

  /** Every key, in order (a copy). */
  all(): string[] {
    return this.keys.slice();
  }
}

/**
 * Walks `keys` from `start` collecting up to `limit` keys that start with `prefix` and pass
 * `accept`; reports whether another accepted key follows, so the caller knows whether to hand
 * out a cursor.
 *
 * @example
 * const { page, more } = collectPage(keys, keys.seek(prefix), prefix, 50);
 */
export function collectPage(
  keys: SortedKeys,
  start: number,
  prefix: string,
  limit: number,
  accept: (key: string) => boolean = () => true,
): { page: string[]; more: boolean } {
  const page: string[] = [];
  for (let index = start; ; index++) {
    const key = keys.at(index);
    if (key === undefined || !key.startsWith(prefix)) return { page, more: false };
    if (!accept(key)) continue;
    if (page.length === limit) return { page, more: true };
    page.push(key);
  }
}
