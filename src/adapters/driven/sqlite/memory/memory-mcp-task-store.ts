import type { McpTaskStore } from "../../../../ports/mcp-task-store.js";
import { createSqlMcpTaskStore } from "../../kernel/mcp-task-rows.js";
import { mcpTasks } from "../mcp-tasks/mcp-task-schema.js";
import { openMemoryDatabase } from "./memory-database.js";

/**
 * The in-memory MCP task store (MCP-13), one process only: the SQLite task store on an in-memory
 * task database ({@link openMemoryDatabase}).
 *
 * @example
 * const tasks = createMemoryMcpTaskStore();
 */
export function createMemoryMcpTaskStore(): McpTaskStore {
  return createSqlMcpTaskStore(openMemoryDatabase("mcp-tasks", { mcpTasks }));
}
