/**
 * Store-level limits, enforced by every adapter (and by the contract suites). Lengths count
 * UTF-16 code units (JavaScript `string.length`), the unit JSON Schema's `maxLength` does not use;
 * capability-level limits (CAP-4) are separate and count code points.
 */
export const STORE_LIMITS = {
  /** Longest KV key / persistent-value name, in UTF-16 units. */
  kvKey: 1024,
  /** Largest KV value, serialised as JSON, in bytes (UTF-8). */
  kvValueBytes: 1024 * 1024,
  /** Longest document id, in UTF-16 units. */
  documentId: 512,
  /** Longest document title, in UTF-16 units. */
  documentTitle: 1024,
  /** Largest document body, in UTF-16 units. */
  documentMarkdown: 1_000_000,
  /** Largest search query, in UTF-16 units. */
  searchQuery: 2000,
  /** Largest page size; smaller requests are honoured, larger ones clamped. */
  pageLimit: 500,
  /** Default page size. */
  defaultPageLimit: 50,
  /**
   * Longest cursor string accepted. A keyset cursor carries the last key it returned (up to
   * `kvKey` UTF-16 units, JSON-escaped and base64url-encoded), hence the headroom.
   */
  cursor: 16_384,
} as const;
