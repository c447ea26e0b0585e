/**
 * What every storage family's constructor accepts beside its own connection options (memory,
 * SQLite, PostgreSQL), declared once so the three cannot drift apart.
 */
import type { Clock } from "../../../ports/clock.js";
import type { IdSource } from "../../../ports/id-source.js";

/** The options every storage shares. */
export interface StorageOptions {
  /** Time source for `updatedAt`/`createdAt`; defaults to the system clock. */
  clock?: Clock;
  /** Id source for managed files; defaults to random UUIDs. */
  idSource?: IdSource;
  /** Largest managed file; defaults to 64 MiB. */
  maxFileBytes?: number;
}
