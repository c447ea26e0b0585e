import { join } from "node:path";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { McpTaskStore } from "../../../../ports/mcp-task-store.js";
import { createSqlMcpTaskStore } from "../../kernel/mcp-task-rows.js";
import { openMigratedSqlite } from "../shared/migrations.js";
import { sqliteStoreOn } from "../shared/sqlite-sql-driver.js";
import { mcpTaskTables } from "./mcp-task-schema.js";

/** The task store's file name inside a persistent-value store dir. */
export const MCP_TASK_DATABASE_FILE = "mcp-tasks.sqlite";

/** Options of {@link createSqliteMcpTaskStore}. */
export interface SqliteMcpTaskStoreOptions {
  /** The database file (created with its folder when missing); or give `directory`. */
  path?: string;
  /** A folder (the project's persistent-value store dir): the file is `<directory>/mcp-tasks.sqlite`. */
  directory?: string;
  /** How long a write waits for another process's write lock (default 5000 ms). */
  busyTimeoutMs?: number;
}

/**
 * The SQLite MCP task store (MCP-13): one WAL-mode file that every host process on this machine
 * serving the project shares; migrations from `drizzle/mcp-tasks`.
 *
 * @example
 * const tasks = createSqliteMcpTaskStore({ directory: "/data/values" });
 */
export function createSqliteMcpTaskStore(options: SqliteMcpTaskStoreOptions): McpTaskStore {
  const path = options.path ?? (options.directory !== undefined ? join(options.directory, MCP_TASK_DATABASE_FILE) : undefined);
  if (path === undefined) throw new SteamharnessError("input_validation", "[steamharness] [sqlite] give path or directory for the task store", { field: "path" });
  const opened = openMigratedSqlite(path, { migrations: "mcp-tasks", what: "the task store", ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }) });
  return createSqlMcpTaskStore(sqliteStoreOn(opened, mcpTaskTables()));
}
