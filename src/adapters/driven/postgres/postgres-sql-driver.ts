/**
 * The kernel's SQL row driver on PostgreSQL, the store opened as the kernel's stores take it, and
 * the stores that are only the kernel's on it (API keys, configuration accounts and projects, MCP
 * tasks): each one call on {@link openPostgresStore}.
 */
import * as ops from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import type { Pool } from "pg";
import type { ApiKeyStore } from "../../../ports/api-keys.js";
import type { Clock } from "../../../ports/clock.js";
import type { ConfigurationAccountStore } from "../../../ports/configuration-accounts.js";
import type { McpTaskStore } from "../../../ports/mcp-task-store.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { createApiKeyStore } from "../kernel/api-keys.js";
import { sqlConfigurationAccounts } from "../kernel/configuration-accounts.js";
import { sqlConfigurationStoreOn } from "../kernel/configuration-rows.js";
import { createSqlMcpTaskStore } from "../kernel/mcp-task-rows.js";
import { drive, preparedStatements, sqlStoreOf, type Sql, type SqlDriver, type SqlStatement, type SqlStore } from "../kernel/sql-driver.js";
import { createSystemClock } from "../system/clock.js";
import { createKeySecrets } from "../system/key-secrets.js";
import { wrapAdapterError } from "../../../domain/errors.js";
import { requireMigrationsFolder } from "../system/migrations-folder.js";
import { checkSchemaName, DEFAULT_POSTGRES_SCHEMA, driverFault, migratePostgresSchema, poolOf, postgresCall, POSTGRES_MIGRATIONS_TABLE, type PostgresConnectionOptions, type PostgresQueryable } from "./postgres-database.js";
import { postgresTables, type PostgresTables } from "./schema.js";

/**
 * The kernel's SQL row driver on a node-postgres drizzle database (or transaction): every query
 * is a promise, statements are built once per driver, transactions hold `SELECT … FOR UPDATE` row locks.
 *
 * @example
 * const driver = postgresSqlDriver(db, tables, clock);
 */
export function postgresSqlDriver<T>(db: PostgresQueryable, tables: T, clock: Clock): SqlDriver<T> {
  const driver: SqlDriver<T> = {
    dialect: "postgres",
    db,
    tables,
    ops,
    clock,
    // Awaited here: drizzle's queries are thenables, not promises, and the kernel tells a later result by `instanceof Promise`.
    all: async (query) => await query,
    get: async (query) => (await query)[0],
    run: async (query) => (await query).rowCount ?? 0,
    execute(statement, params) {
      const result = preparedOf(statement as SqlStatement<never>).execute(params);
      return statement.mode === "run" ? driver.run(result) : driver[statement.mode](result);
    },
    transaction: (steps, options) =>
      db.transaction(async (tx) => drive(steps(postgresSqlDriver(tx, tables, clock))), options?.readOnly ? { isolationLevel: "repeatable read", accessMode: "read only" } : undefined),
    forUpdate: (query: Sql) => query.for("update"),
    isUniqueViolation: (error) => (driverFault(error) as { code?: string } | null)?.code === "23505",
  };
  // drizzle's unnamed prepared query: parsed by the server per call, so no name clashes between schemas on one pooled connection.
  const preparedOf = preparedStatements(driver, (query) => query.prepare());
  return driver;
}

/**
 * Opens the pool (or takes the host's), applies pending migrations to the store's schema (or
 * those of `migrations`: another folder with its own bookkeeping table, such as the MCP task
 * store's; an up-to-date schema costs two catalog reads and no lock) and returns it as the
 * kernel's stores take it: a row driver on its tables, the PostgreSQL call, and a `close()` that
 * ends the pool once when it was made here, with the pool and schema. Faults throw
 * `storage_failure` with the driver's error as `cause`; a pool made here is ended on failure.
 *
 * @example
 * const keys = createApiKeyStore(await openPostgresStore({ connectionString }), createKeySecrets());
 */
export async function openPostgresStore(options: PostgresConnectionOptions, clock: Clock = createSystemClock(), migrations = { folder: "postgres", table: POSTGRES_MIGRATIONS_TABLE, what: "the store" }): Promise<SqlStore<PostgresTables> & { pool: Pool; schema: string }> {
  const schema = checkSchemaName(options.schema ?? DEFAULT_POSTGRES_SCHEMA);
  const migrationsFolder = options.migrationsFolder ?? requireMigrationsFolder(migrations.folder, "postgres");
  const { pool, end } = poolOf(options);
  try {
    await migratePostgresSchema(pool, schema, migrationsFolder, migrations.table);
  } catch (error) {
    await end().catch(() => {});
    throw wrapAdapterError("postgres", `cannot open ${migrations.what} in schema "${schema}"`, driverFault(error));
  }
  return { pool, schema, ...sqlStoreOf(postgresSqlDriver(drizzle({ client: pool }), postgresTables(schema), clock), postgresCall, end) };
}

/**
 * The API-key store in a PostgreSQL schema (BUD-4; default `"steamharness"`, migrated on open like
 * {@link createPostgresStorage}): every gateway host on the database shares keys, tenants, rate
 * windows and slots. Opening faults throw `storage_failure`.
 *
 * @example
 * const keys = await createPostgresApiKeyStore({ connectionString: "postgres://app@db.internal/app" });
 * const { secret } = await keys.add({ id: "acme", concurrency: 4 }, Date.now());
 * await keys.close();
 */
export async function createPostgresApiKeyStore(options: PostgresConnectionOptions = {}): Promise<ApiKeyStore> {
  return createApiKeyStore(await openPostgresStore(options), createKeySecrets());
}

/** Options of {@link createPostgresConfigurationAccounts}. */
export interface PostgresConfigurationAccountsOptions extends PostgresConnectionOptions {
  clock?: Clock;
}

/**
 * The configuration server's accounts on PostgreSQL (CFG-4): the kernel's account store over its
 * SQL rows and, per account, the project configuration store keyed by (account, project), in the
 * schema and migrations of `createPostgresStorage`. One pool serves every account; `close()` ends
 * it when it was made here.
 *
 * @example
 * const accounts = await createPostgresConfigurationAccounts({ connectionString: process.env.DATABASE_URL });
 * const store = accounts.configurations(account.accountId);
 */
export async function createPostgresConfigurationAccounts(options: PostgresConfigurationAccountsOptions = {}): Promise<ConfigurationAccountStore> {
  return sqlConfigurationAccounts(await openPostgresStore(options, options.clock));
}

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

/** drizzle's bookkeeping table of the task store's migrations, inside its schema. */
export const POSTGRES_MCP_TASK_MIGRATIONS_TABLE = "__steamharness_mcp_task_migrations";

/** Options of {@link createPostgresMcpTaskStore}: the database, and the schema of the table (created if missing). */
export interface PostgresMcpTaskStoreOptions extends Pick<PostgresConnectionOptions, "schema" | "statementTimeoutMs"> {
  /** `postgres://user:password@host:port/database`. */
  connectionString: string;
}

/**
 * The PostgreSQL MCP task store (MCP-13): the store several hosts on several machines share
 * (`steamharness mcp --http --postgres <url>`); migrations from `drizzle/postgres-mcp-tasks`.
 * Connection or migration faults reject with `storage_failure`.
 *
 * @example
 * const tasks = await createPostgresMcpTaskStore({ connectionString: "postgres://localhost/app" });
 */
export async function createPostgresMcpTaskStore(options: PostgresMcpTaskStoreOptions): Promise<McpTaskStore> {
  return createSqlMcpTaskStore(await openPostgresStore(options, undefined, { folder: "postgres-mcp-tasks", table: POSTGRES_MCP_TASK_MIGRATIONS_TABLE, what: "the task store" }));
}
