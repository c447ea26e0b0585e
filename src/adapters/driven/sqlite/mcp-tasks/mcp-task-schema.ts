/**
 * The MCP task table (MCP-13) of the SQLite task store, a file of its own in the project's data
 * store (`mcp-tasks.sqlite`). Migrations are generated from this file with
 * `npx drizzle-kit generate --config drizzle.mcp-tasks.config.ts` into `drizzle/mcp-tasks/`.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One row per task; `result` and `paused` are JSON text. */
export const mcpTasks = sqliteTable(
  "mcp_tasks",
  {
    projectId: text("project_id").notNull(),
    taskId: text("task_id").notNull(),
    entrypointId: text("entrypoint_id").notNull(),
    status: text("status").notNull(),
    statusMessage: text("status_message"),
    ownerHost: text("owner_host"),
    leaseExpiresAt: integer("lease_expires_at"),
    ttlMs: integer("ttl_ms").notNull(),
    pollIntervalMs: integer("poll_interval_ms").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    result: text("result"),
    paused: text("paused"),
    /** Who created the task (MCP-13 tenant separation); null on hosts without authorization. */
    tenantId: text("tenant_id"),
  },
  // `mcp_tasks_lapsed_idx` serves each host's sweep for dead owners' working rows (TEN-6).
  (table) => [primaryKey({ columns: [table.projectId, table.taskId] }), index("mcp_tasks_created_idx").on(table.projectId, table.createdAt), index("mcp_tasks_updated_idx").on(table.updatedAt), index("mcp_tasks_lapsed_idx").on(table.projectId, table.status, table.leaseExpiresAt)],
);
