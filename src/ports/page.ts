/**
 * One page of a paginated listing. `nextCursor` is `null` on the last page. Cursors are opaque
 * strings produced by the same store; passing a cursor the store did not produce, or one from a
 * different listing (another prefix, scope or query), fails with `input_validation` or
 * `cursor_mismatch` and never returns a wrong page.
 */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Paging options shared by every listing. `limit` defaults to 50 and is capped at 500. */
export interface PageOptions {
  cursor?: string | null;
  limit?: number;
}
