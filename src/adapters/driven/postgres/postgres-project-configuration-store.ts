import type { Clock } from "../../../ports/clock.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { sqlConfigurationStoreOn } from "../kernel/configuration-rows.js";
import type { PostgresConnectionOptions } from "./postgres-database.js";
import { openPostgresStore } from "./postgres-sql-driver.js";

/** Options of {@link createPostgresProjectConfigurationStore}. */
export interface PostgresProjectConfigurationStoreOptions extends PostgresConnectionOptions {
  clock?: Clock;
  /** The account whose projects this store reads and writes (CFG-4); default "" (a host's own store). */
  accountId?: string;
}

/**
 * The project configuration store (CFG-1) on PostgreSQL, in the same schema and migrations as
 * `createPostgresStorage`. A write is one transaction holding the project row's lock (a fresh
 * project gets its row first, as revision 0, the empty state): it reads the project, applies the
 * domain's rules and writes back, so two writers holding the same revision — in any process —
 * cannot both win. Reads use one REPEATABLE READ snapshot. Async because it migrates on open;
 * `close()` ends the pool it created (never a host's `pool`).
 *
 * @example
 * const store = await createPostgresProjectConfigurationStore({ connectionString: process.env.DATABASE_URL });
 * const overview = await store.read("my-project");
 * await store.close?.();
 */
export async function createPostgresProjectConfigurationStore(options: PostgresProjectConfigurationStoreOptions = {}): Promise<ProjectConfigurationStore> {
  return sqlConfigurationStoreOn(await openPostgresStore(options, options.clock), options.accountId ?? "");
}
