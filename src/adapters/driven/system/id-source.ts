import { randomUUID } from "node:crypto";
import type { IdSource } from "../../../ports/id-source.js";

/**
 * Random ids (`crypto.randomUUID()`), unique across processes, with an optional prefix.
 *
 * @example
 * createRandomIdSource().next("file_"); // "file_0b4c…"
 */
export function createRandomIdSource(): IdSource {
  return {
    next(prefix = ""): string {
      return `${prefix}${randomUUID()}`;
    },
  };
}
