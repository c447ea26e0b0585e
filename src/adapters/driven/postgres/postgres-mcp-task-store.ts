import type { McpTaskStore } from "../../../ports/mcp-task-store.js";
import { pgSchema } from "drizzle-orm/pg-core";
import { createSqlMcpTaskStore, MCP_TASK_TABLE } from "../kernel/mcp-task-rows.js";
import { createSystemClock } from "../system/clock.js";
import type { PostgresConnectionOptions } from "./postgres-database.js";
import { openPostgresStore, postgresSqlDriver } from "./postgres-sql-driver.js";
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
  const { connection, call, close } = await openPostgresStore(options, undefined, { folder: "postgres-mcp-tasks", table: POSTGRES_MCP_TASK_MIGRATIONS_TABLE, what: "the task store" });
  return createSqlMcpTaskStore({ driver: postgresSqlDriver(connection.db, { mcpTasks: pgTableOf(MCP_TASK_TABLE, pgSchema(connection.schema).table) }, createSystemClock()), call, close });
}
