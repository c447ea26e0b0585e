import pg from "pg";
import { SteamharnessError, wrapAdapterError } from "../../../domain/errors.js";
import type { McpTaskStore } from "../../../ports/mcp-task-store.js";
import { insertTask, listLapsedTasks, listTasks, pageOf, pruneTasks, recordOf, renewLeasesOf, selectTask, type TaskStatement, updateTask } from "../kernel/mcp-task-rows.js";
import { findMigrationsFolder } from "../system/migrations-folder.js";
import { boundedPoolConfig, checkStatementTimeout } from "./postgres-deadlines.js";
import { checkSchemaName, DEFAULT_POSTGRES_SCHEMA, driverFault, migratePostgresSchema } from "./postgres-database.js";

/** drizzle's bookkeeping table of the task store's migrations, inside its schema. */
export const POSTGRES_MCP_TASK_MIGRATIONS_TABLE = "__steamharness_mcp_task_migrations";

/** Options of {@link createPostgresMcpTaskStore}. */
export interface PostgresMcpTaskStoreOptions {
  /** `postgres://user:password@host:port/database`. */
  connectionString: string;
  /** The schema of the table (created if missing); default `steamharness`. */
  schema?: string;
  /** Milliseconds a statement may run (default 30 000). */
  statementTimeoutMs?: number;
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
  const folder = findMigrationsFolder("postgres-mcp-tasks");
  if (folder === null) throw new SteamharnessError("internal", "[steamharness] [postgres] drizzle/postgres-mcp-tasks migrations not found");
  const pool = new pg.Pool({ connectionString: options.connectionString, ...boundedPoolConfig(checkStatementTimeout(options.statementTimeoutMs)) });
  pool.on("error", () => {});
  try {
    await migratePostgresSchema(pool, schema, folder, POSTGRES_MCP_TASK_MIGRATIONS_TABLE);
  } catch (error) {
    await pool.end().catch(() => {});
    throw wrapAdapterError("postgres", `cannot open the task store in schema "${schema}"`, driverFault(error));
  }
  const table = `"${schema.replace(/"/g, '""')}".mcp_tasks`;
  let closed = false;
  const query = async (what: string, statement: TaskStatement) => {
    if (closed) throw new SteamharnessError("storage_failure", "[steamharness] [postgres] the task store is closed");
    try {
      return await pool.query({ text: statement.text.replace(/\bmcp_tasks\b/g, table), values: statement.values });
    } catch (error) {
      if ((error as { code?: string }).code === "23505") throw new SteamharnessError("conflict", `[steamharness] [postgres] ${what}: the task exists`, { cause: error });
      throw wrapAdapterError("postgres", `${what} failed`, driverFault(error));
    }
  };
  return {
    async create(record) {
      await query("task create", insertTask(record, "::jsonb"));
    },
    async get(projectId, taskId) {
      const { rows } = await query("task read", selectTask(projectId, taskId));
      return rows[0] ? recordOf(rows[0]) : null;
    },
    async update(projectId, taskId, change, expect) {
      return ((await query("task update", updateTask(projectId, taskId, change, expect, "::jsonb"))).rowCount ?? 0) > 0;
    },
    async renewLeases(projectId, ownerHost, taskIds, leaseExpiresAt, renewedAt) {
      if (taskIds.length === 0) return [];
      const { rows } = await query("task lease renewal", renewLeasesOf(projectId, ownerHost, taskIds, leaseExpiresAt, renewedAt));
      return rows.map((row: { task_id: string }) => row.task_id);
    },
    async listLapsed(projectId, before, limit) {
      const { rows } = await query("task lapsed list", listLapsedTasks(projectId, before, limit));
      return rows.map(recordOf);
    },
    async list(projectId, { cursor, limit, tenant }) {
      const { rows } = await query("task list", listTasks(projectId, cursor, limit, tenant));
      return pageOf(rows.map(recordOf), limit);
    },
    async prune(now) {
      return (await query("task prune", pruneTasks(now))).rowCount ?? 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
