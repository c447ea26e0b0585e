import type { McpTaskStore } from "../ports/mcp-task-store.js";
import type { ServerStateLocation } from "../ports/surface-services.js";

/** Where the durable MCP tasks of a served project live (MCP-13): `<directory>/mcp-tasks.sqlite`, or PostgreSQL when `postgres` is given. */
export type McpTaskStoreLocation = ServerStateLocation;

/**
 * Opens the task store of a served project: PostgreSQL when a URL is given, else the project's
 * SQLite file. Each backend loads only when chosen.
 *
 * @example
 * const tasks = await openMcpTaskStore({ directory: host.dirs.persistentValueStoreDir });
 */
export async function openMcpTaskStore(location: McpTaskStoreLocation): Promise<McpTaskStore> {
  if (location.postgres !== undefined) {
    const { createPostgresMcpTaskStore } = await import("../adapters/driven/postgres/postgres-sql-driver.js");
    return createPostgresMcpTaskStore({ connectionString: location.postgres, ...(location.schema ? { schema: location.schema } : {}) });
  }
  const { createSqliteMcpTaskStore } = await import("../adapters/driven/sqlite/mcp-tasks/sqlite-mcp-task-store.js");
  return createSqliteMcpTaskStore({ directory: location.directory });
}
