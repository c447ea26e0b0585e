/**
 * Applying the session migrations (`drizzle/postgres-sessions`) on open: under the same advisory
 * lock the store's migrations take for the schema, so concurrent opens from several processes —
 * of the sessions or of the store, which both may create the schema — apply each migration once.
 * Their bookkeeping table is separate from the store's, so the two folders never collide.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Pool, PoolClient } from "pg";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { SteamharnessError } from "../../../domain/errors.js";
import { findMigrationsFolder, MIGRATIONS_JOURNAL } from "../../migrations-folder.js";
import type { PostgresQueryable } from "../postgres-database.js";

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

function journalLength(migrationsFolder: string): number {
  return (JSON.parse(readFileSync(join(migrationsFolder, MIGRATIONS_JOURNAL), "utf8")) as { entries: unknown[] }).entries.length;
}

async function appliedMigrations(db: PostgresQueryable, schema: string): Promise<number> {
  // Catalog reads have no drizzle builder; the values are parameters.
  const { rows } = await db.execute<{ present: boolean }>(
    sql`select exists (select 1 from pg_catalog.pg_tables where schemaname = ${schema} and tablename = ${POSTGRES_SESSION_MIGRATIONS_TABLE}) as present`,
  );
  if (!rows[0]?.present) return 0;
  const counted = await db.execute<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(schema)}.${sql.identifier(POSTGRES_SESSION_MIGRATIONS_TABLE)}`);
  return counted.rows[0]?.n ?? 0;
}

/**
 * Brings `schema` up to the session migrations: two catalog reads when it is current; else, on
 * one pool connection holding the schema's migration lock (`pg_advisory_lock` keyed like the
 * store's, `hashtextextended('steamharness migrations <schema>', 0)`), creates the schema if
 * needed and applies what is pending with `search_path` pointed at it (reset before the
 * connection goes back; a connection that failed mid-way is discarded).
 *
 * @example
 * await migrateSessionSchema(pool, "steamharness", findPostgresSessionMigrationsFolder());
 */
export async function migrateSessionSchema(pool: Pool, schema: string, migrationsFolder: string): Promise<void> {
  const wanted = journalLength(migrationsFolder);
  if ((await appliedMigrations(drizzle({ client: pool }), schema)) >= wanted) return;
  const client: PoolClient = await pool.connect();
  const db = drizzle({ client });
  const lockKey = `steamharness migrations ${schema}`;
  let broken: unknown;
  try {
    await db.execute(sql`select pg_advisory_lock(hashtextextended(${lockKey}, 0))`);
    try {
      if ((await appliedMigrations(db, schema)) >= wanted) return;
      await db.execute(sql`create schema if not exists ${sql.identifier(schema)}`);
      await db.execute(sql`set search_path to ${sql.identifier(schema)}`);
      await migrate(db, { migrationsFolder, migrationsSchema: schema, migrationsTable: POSTGRES_SESSION_MIGRATIONS_TABLE });
    } finally {
      await db.execute(sql`reset search_path`);
      await db.execute(sql`select pg_advisory_unlock(hashtextextended(${lockKey}, 0))`);
    }
  } catch (error) {
    broken = error;
    throw error;
  } finally {
    client.release(broken === undefined ? undefined : true);
  }
}
