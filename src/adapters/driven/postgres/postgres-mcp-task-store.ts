import { wrapAdapterError } from "../../../domain/errors.js";
import type { McpTaskStore } from "../../../ports/mcp-task-store.js";
import { drizzle } from "drizzle-orm/node-postgres";
import { pgSchema } from "drizzle-orm/pg-core";
import { createSqlMcpTaskStore, MCP_TASK_TABLE } from "../kernel/mcp-task-rows.js";
import { createSystemClock } from "../system/clock.js";
import { requireMigrationsFolder } from "../system/migrations-folder.js";
import { checkSchemaName, DEFAULT_POSTGRES_SCHEMA, driverFault, migratePostgresSchema, poolOf, postgresCall, type PostgresConnectionOptions } from "./postgres-database.js";
import { postgresSqlDriver } from "./postgres-sql-driver.js";
import { pgTableOf } from "./postgres-table.js";

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
  const schema = checkSchemaName(options.schema ?? DEFAULT_POSTGRES_SCHEMA);
  const folder = requireMigrationsFolder("postgres-mcp-tasks", "postgres");
  const { pool, end } = poolOf(options);
  try {
    await migratePostgresSchema(pool, schema, folder, POSTGRES_MCP_TASK_MIGRATIONS_TABLE);
  } catch (error) {
    await end().catch(() => {});
    throw wrapAdapterError("postgres", `cannot open the task store in schema "${schema}"`, driverFault(error));
  }
  const state = { closed: false };
  const driver = postgresSqlDriver(drizzle({ client: pool }), { mcpTasks: pgTableOf(MCP_TASK_TABLE, pgSchema(schema).table) }, createSystemClock());
  return createSqlMcpTaskStore(driver, postgresCall(state), async () => {
    state.closed = true;
    await end();
  });
}
