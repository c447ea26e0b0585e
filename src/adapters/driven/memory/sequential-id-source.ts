import type { IdSource } from "../../../ports/id-source.js";

/**
 * Predictable ids for tests: `<prefix><base><n>` with n = 1, 2, 3… The `next()` prefix comes
 * first so ids still start with what the caller asked for. Unique only within one source.
 *
 * @example
 * const ids = createSequentialIdSource("id-");
 * ids.next();        // "id-1"
 * ids.next("file_"); // "file_id-2"
 */
export function createSequentialIdSource(base = "id-"): IdSource {
  let counter = 0;
  return {
    next(prefix = ""): string {
      counter++;
      return `${prefix}${base}${counter}`;
    },
  };
}
