/**
 * The task table as a top-level export, which is how drizzle-kit reads a schema
 * (drizzle.mcp-tasks.config.ts); the stores build it on first use through {@link mcpTaskTables}
 * instead (PERF-1).
 */
import { mcpTaskTables } from "./mcp-task-schema.js";

export const { mcpTasks } = mcpTaskTables();
