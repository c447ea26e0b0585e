/**
 * The MCP task table (MCP-13) of the SQLite task store, a file of its own in the project's data
 * store (`mcp-tasks.sqlite`), built from the definition both dialects share. Migrations are
 * generated from drizzle-kit-schema.ts beside it with
 * `npx drizzle-kit generate --config drizzle.mcp-tasks.config.ts` into `drizzle/mcp-tasks/`.
 */
import { MCP_TASK_TABLE } from "../../kernel/mcp-task-rows.js";
import { sqliteTablesOf } from "../shared/sqlite-table.js";

/**
 * One row per task; `result` and `paused` are JSON text. Built on first call: the root entry
 * reaches the memory task store, and must not load drizzle as it is imported (PERF-1).
 *
 * @example
 * const { mcpTasks } = mcpTaskTables();
 */
export const mcpTaskTables = sqliteTablesOf({ mcpTasks: MCP_TASK_TABLE });
