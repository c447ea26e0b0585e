/**
 * Capability-level length limits (CAP-4). Every limit counts Unicode code points, not UTF-16
 * units: "𝒳" (U+1D4B3) is one character, as JSON Schema's `maxLength` defines it, so the number a
 * schema publishes is the number the implementation enforces. A lone surrogate counts as one.
 * These limits sit below the store limits (`STORE_LIMITS`, UTF-16 units) even for all-astral text:
 * 200 code points are at most 400 units.
 */
import { SteamharnessError } from "../errors.js";

/** The CAP-4 limits, in code points. */
export const CAPABILITY_LIMITS = {
  knowledgeMarkdown: 200_000,
  knowledgeTitle: 200,
  knowledgeDocumentId: 200,
  query: 500,
  cursor: 80,
  memoryMarkdown: 100_000,
  memoryTitle: 200,
  /** `assistant-memory-` (17) + memoryId must fit the 200-code-point document id. */
  memoryId: 183,
  kvKey: 500,
  /** Ours: page sizes of list and search. */
  pageLimit: 100,
  defaultPageLimit: 20,
  cardTitle: 200,
  cardId: 200,
  /** Ours: other identifiers in card targets and host-configuration calls. */
  identifier: 200,
  url: 2000,
  filePath: 1000,
} as const;

/**
 * Number of Unicode code points in `text` (a lone surrogate counts as one).
 *
 * @example
 * codePointLength("a𝒳中") // 3, although "a𝒳中".length is 4
 */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/**
 * Throws `input_validation` naming `field` and the limit when `value` has more than `limit`
 * code points.
 *
 * @example
 * assertMaxCodePoints("title", title, CAPABILITY_LIMITS.knowledgeTitle)
 */
export function assertMaxCodePoints(field: string, value: string, limit: number): void {
  // Fast path: a string of at most `limit` UTF-16 units has at most `limit` code points.
  if (value.length <= limit) return;
  const length = codePointLength(value);
  if (length > limit) {
    throw new SteamharnessError("input_validation", `${field} is longer than ${limit} characters (code points): got ${length}`, {
      field,
      data: { limit, length, unit: "code points" },
    });
  }
}
