/**
 * The MCP task table (MCP-13) of the SQLite task store, a file of its own in the project's data
 * store (`mcp-tasks.sqlite`), built from the definition both dialects share. Migrations are
 * generated from this file with `npx drizzle-kit generate --config drizzle.mcp-tasks.config.ts`
 * into `drizzle/mcp-tasks/`.
 */
import { MCP_TASK_TABLE } from "../../kernel/mcp-task-rows.js";
import { sqliteTableOf } from "../shared/sqlite-table.js";

/** One row per task; `result` and `paused` are JSON text. */
export const mcpTasks = sqliteTableOf(MCP_TASK_TABLE);
