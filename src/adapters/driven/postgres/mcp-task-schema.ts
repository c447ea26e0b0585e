/**
 * The MCP task table (MCP-13) of the PostgreSQL task store, built from the definition both
 * dialects share. Migrations are generated from this file with
 * `npx drizzle-kit generate --config drizzle.postgres-mcp-tasks.config.ts`.
 */
import { MCP_TASK_TABLE } from "../kernel/mcp-task-rows.js";
import { pgTableOf } from "./postgres-table.js";

/** One row per task; `result` and `paused` are `jsonb`. */
export const mcpTasks = pgTableOf(MCP_TASK_TABLE);
