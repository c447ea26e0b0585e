/**
 * The MCP task table (MCP-13) of the PostgreSQL task store. Migrations are generated from this
 * file with `npx drizzle-kit generate --config drizzle.postgres-mcp-tasks.config.ts`.
 */
import { bigint, index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** One row per task. */
export const mcpTasks = pgTable(
  "mcp_tasks",
  {
    projectId: text("project_id").notNull(),
    taskId: text("task_id").notNull(),
    entrypointId: text("entrypoint_id").notNull(),
    status: text("status").notNull(),
    statusMessage: text("status_message"),
    ownerHost: text("owner_host"),
    leaseExpiresAt: bigint("lease_expires_at", { mode: "number" }),
    ttlMs: bigint("ttl_ms", { mode: "number" }).notNull(),
    pollIntervalMs: bigint("poll_interval_ms", { mode: "number" }).notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
    result: jsonb("result"),
    paused: jsonb("paused"),
    /** Who created the task (MCP-13 tenant separation); null on hosts without authorization. */
    tenantId: text("tenant_id"),
  },
  // `mcp_tasks_lapsed_idx` serves each host's sweep for dead owners' working rows (TEN-6).
  (table) => [primaryKey({ columns: [table.projectId, table.taskId] }), index("mcp_tasks_created_idx").on(table.projectId, table.createdAt), index("mcp_tasks_updated_idx").on(table.updatedAt), index("mcp_tasks_lapsed_idx").on(table.projectId, table.status, table.leaseExpiresAt)],
);
