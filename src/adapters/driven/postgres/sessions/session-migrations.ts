/**
 * Applying the session migrations (`drizzle/postgres-sessions`) on open: under the same advisory
 * lock the store's migrations take for the schema, so concurrent opens from several processes —
 * of the sessions or of the store, which both may create the schema — apply each migration once.
 * Their bookkeeping table is separate from the store's, so the two folders never collide.
 */
import type { Pool } from "pg";
import { SteamharnessError } from "../../../../domain/errors.js";
import { findMigrationsFolder } from "../../system/migrations-folder.js";
import { migratePostgresSchema } from "../postgres-database.js";

/** drizzle's bookkeeping table of the session migrations, inside the sessions' schema. */
export const POSTGRES_SESSION_MIGRATIONS_TABLE = "__steamharness_session_migrations";

/**
 * The checked-in session migrations (`drizzle/postgres-sessions`). Throws `internal` when missing.
 *
 * @example
 * const folder = findPostgresSessionMigrationsFolder(); // "/…/steamharness/drizzle/postgres-sessions"
 */
export function findPostgresSessionMigrationsFolder(start?: string): string {
  const folder = findMigrationsFolder("postgres-sessions", start);
  if (folder === null) throw new SteamharnessError("internal", `[steamharness] [postgres] no drizzle/postgres-sessions migrations folder above ${start ?? "the package"}`);
  return folder;
}

/**
 * Brings `schema` up to the session migrations, under the schema's migration lock shared with the
 * store's migrations ({@link migratePostgresSchema}).
 *
 * @example
 * await migrateSessionSchema(pool, "steamharness", findPostgresSessionMigrationsFolder());
 */
export async function migrateSessionSchema(pool: Pool, schema: string, migrationsFolder: string): Promise<void> {
  await migratePostgresSchema(pool, schema, migrationsFolder, POSTGRES_SESSION_MIGRATIONS_TABLE);
}
