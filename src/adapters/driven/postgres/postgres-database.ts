/**
 * Opening the PostgreSQL store: the pool (ours or the host's), the schema-bound tables, and the
 * migrations applied on open under an advisory lock so that concurrent opens from several
 * processes apply each migration once.
 */
import pg from "pg";
import type { Pool } from "pg";
import { DrizzleQueryError, sql } from "drizzle-orm";
import { drizzle, type NodePgDatabase, type NodePgQueryResultHKT } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase } from "drizzle-orm/pg-core";
import { SteamharnessError, wrapAdapterError } from "../../../domain/errors.js";
import type { StoreCall } from "../kernel/store-call.js";
import { migrationCount, requireMigrationsFolder } from "../system/migrations-folder.js";
import { boundedPoolConfig, checkStatementTimeout } from "./postgres-deadlines.js";

/** The schema the store's tables live in unless `schema` names another. */
export const DEFAULT_POSTGRES_SCHEMA = "steamharness";
/** drizzle's bookkeeping table, inside the store's schema. */
export const POSTGRES_MIGRATIONS_TABLE = "__steamharness_migrations";
// PostgreSQL truncates identifiers longer than NAMEDATALEN - 1 bytes.
const MAX_SCHEMA_BYTES = 63;

/** How to reach the database; shared by the storage and the configuration store. */
export interface PostgresConnectionOptions {
  /** `postgres://user:password@host:port/database`; without it and `pool`, libpq's PG* variables apply. */
  connectionString?: string;
  /** A pool the host owns: used as is, never ended by `close()`. Wins over `connectionString`. */
  pool?: Pool;
  /** The schema holding the tables (created if missing); default {@link DEFAULT_POSTGRES_SCHEMA}. */
  schema?: string;
  /** The drizzle migrations folder; found next to the package by default (`drizzle/postgres`; the session tables': `drizzle/postgres-sessions`). */
  migrationsFolder?: string;
  /**
   * Milliseconds a statement may run on the connections the store opens (its own pool, session
   * lease connections); default 30 000, 0 for no bound. The server cancels a longer statement;
   * a server that does not answer at all is given up 2 s later and the connection is closed.
   * Either way the call fails with `storage_failure`. A host's `pool` keeps its own settings.
   */
  statementTimeoutMs?: number;
}

/** The drizzle handle over the pool. */
export type PostgresDb = NodePgDatabase;
/** What a query can run on: the pool's handle or a transaction. */
export type PostgresQueryable = PgDatabase<NodePgQueryResultHKT>;

/**
 * The driver's own error beneath drizzle's `DrizzleQueryError`, whose message carries the
 * statement and its parameters (user data: values, file bytes) that must not reach our messages.
 *
 * @example
 * wrapAdapterError("postgres", "kv get failed", driverFault(error));
 */
export function driverFault(error: unknown): unknown {
  let fault = error;
  while (fault instanceof DrizzleQueryError && fault.cause !== undefined) fault = fault.cause;
  return fault;
}

/**
 * The kernel's call for the PostgreSQL stores: `storage_failure` once the store is closed, and
 * any fault of the driver wrapped once as `storage_failure` with the driver's error as `cause`
 * (steamharness errors pass through).
 *
 * @example
 * const kv = createKvStore(sqlKvRows(driver), postgresCall(state));
 */
export function postgresCall(state: { closed: boolean }): StoreCall {
  return async (what, step) => {
    if (state.closed) throw new SteamharnessError("storage_failure", "[steamharness] [postgres] the store is closed");
    try {
      return await step();
    } catch (error) {
      const fault = driverFault(error);
      // PostgreSQL text and jsonb cannot hold U+0000 (SQLite and memory can): refuse the input,
      // like any other value the store cannot keep, instead of reporting a storage fault.
      if (NUL_REFUSED.has((fault as { code?: unknown } | null)?.code as string)) {
        throw new SteamharnessError("input_validation", `[steamharness] [postgres] ${what}: PostgreSQL cannot store the character U+0000 in text`, { cause: fault });
      }
      throw wrapAdapterError("postgres", `${what} failed`, fault);
    }
  };
}

/** SQLSTATEs of a U+0000 in text (22021 character_not_in_repertoire) or jsonb (22P05 untranslatable_character). */
const NUL_REFUSED = new Set(["22021", "22P05"]);

/**
 * The checked `schema` option: a non-empty name of at most 63 bytes that is not a system schema
 * (`information_schema`, `pg_catalog`, `pg_toast` or any `pg_…`, in any case): the store creates
 * tables and runs migrations in its schema, which must never be one the server or other
 * applications rely on. Throws `input_validation` otherwise.
 *
 * @example
 * checkSchemaName("steamharness") // "steamharness"
 * checkSchemaName("pg_catalog") // throws input_validation
 */
export function checkSchemaName(schema: unknown): string {
  if (typeof schema !== "string" || schema.length === 0 || Buffer.byteLength(schema) > MAX_SCHEMA_BYTES || schema.includes("\0")) {
    throw new SteamharnessError("input_validation", `[steamharness] [postgres] schema must be a non-empty name of at most ${MAX_SCHEMA_BYTES} bytes`, { field: "schema" });
  }
  const lower = schema.toLowerCase();
  if (lower === "information_schema" || lower.startsWith("pg_")) {
    throw new SteamharnessError("input_validation", `[steamharness] [postgres] schema "${schema}" is a system schema (information_schema, pg_*): choose a schema of the application's own`, {
      field: "schema",
    });
  }
  return schema;
}

/**
 * The checked-in PostgreSQL migrations (`drizzle/postgres`). Throws `internal` when missing.
 *
 * @example
 * const folder = findPostgresMigrationsFolder(); // "/…/steamharness/drizzle/postgres"
 */
export function findPostgresMigrationsFolder(start?: string): string {
  return requireMigrationsFolder("postgres", "postgres", start);
}

/** How many migrations of one bookkeeping table the schema records as applied (0 before the first). */
async function appliedMigrations(db: PostgresQueryable, schema: string, migrationsTable: string): Promise<number> {
  // Catalog reads have no drizzle builder; the values are parameters.
  const { rows } = await db.execute<{ present: boolean }>(
    sql`select exists (select 1 from pg_catalog.pg_tables where schemaname = ${schema} and tablename = ${migrationsTable}) as present`,
  );
  if (!rows[0]?.present) return 0;
  const counted = await db.execute<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(schema)}.${sql.identifier(migrationsTable)}`);
  return counted.rows[0]?.n ?? 0;
}

/**
 * Brings `schema` up to a checked-in migrations folder whose bookkeeping lives in
 * `migrationsTable` (the store's and the sessions' folders each have their own). Current: two
 * catalog reads and no lock. Else, on one pool connection holding a session advisory lock keyed
 * by the schema (the same key for every folder, since each may create the schema), concurrent
 * opens — other processes included — migrate one after the other: the first applies, the rest
 * find everything applied. The migrations name no schema; `search_path` points them at ours for
 * the duration and is reset before the connection returns to the pool.
 *
 * @example
 * await migratePostgresSchema(pool, "steamharness", findPostgresMigrationsFolder(), POSTGRES_MIGRATIONS_TABLE);
 */
export async function migratePostgresSchema(pool: Pool, schema: string, migrationsFolder: string, migrationsTable: string): Promise<void> {
  const wanted = migrationCount(migrationsFolder);
  if ((await appliedMigrations(drizzle({ client: pool }), schema, migrationsTable)) >= wanted) return;
  const client = await pool.connect();
  const db = drizzle({ client });
  const lock = sql`hashtextextended(${`steamharness migrations ${schema}`}, 0)`;
  try {
    await db.execute(sql`select pg_advisory_lock(${lock})`);
    if ((await appliedMigrations(db, schema, migrationsTable)) < wanted) {
      // drizzle's migrator creates the schema (its bookkeeping's) before it applies the migrations.
      await db.execute(sql`set search_path to ${sql.identifier(schema)}`);
      await migrate(db, { migrationsFolder, migrationsSchema: schema, migrationsTable });
      await db.execute(sql`reset search_path`);
    }
    await db.execute(sql`select pg_advisory_unlock(${lock})`);
    client.release();
  } catch (error) {
    // A connection that failed mid-way may still hold the lock or our search_path: ended, not pooled.
    client.release(true);
    throw error;
  }
}

/**
 * The pool of `options`, the one place a PostgreSQL adapter makes one: the host's `pool` as is,
 * else a pool from `connectionString` (libpq's PG* variables without it) whose statements are
 * bounded by `statementTimeoutMs` (checked: `input_validation`), with `config` on top.
 *
 * @example
 * const { pool, end } = poolOf({ connectionString: "postgres://localhost/app" }, { max: 2 });
 */
export function poolOf(options: Pick<PostgresConnectionOptions, "pool" | "connectionString" | "statementTimeoutMs">, config: pg.PoolConfig = {}): { pool: Pool; end(): Promise<void> } {
  const statementTimeoutMs = checkStatementTimeout(options.statementTimeoutMs);
  // A host's pool is used as is and left open; one made here is ended once.
  if (options.pool) return { pool: options.pool, end: async () => {} };
  const pool = new pg.Pool({ ...(options.connectionString === undefined ? {} : { connectionString: options.connectionString }), ...config, ...boundedPoolConfig(statementTimeoutMs) });
  // An idle connection the server drops emits "error" on the pool; the next query reports it.
  pool.on("error", () => {});
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    await pool.end();
  };
  return { pool, end };
}
