/**
 * The drizzle tables of the PostgreSQL store (stores and project configurations), built from the
 * definitions both dialects share (kernel/tables.ts). Migrations in `drizzle/postgres/` are
 * generated from the unqualified tables exported here with
 * `npx drizzle-kit generate --config drizzle.postgres.config.ts`; they name no schema, so they
 * apply to whichever schema `search_path` points at when migrating. At run time the adapters use
 * {@link postgresTables} bound to the configured schema, so every query names its schema and a
 * host's pool needs no `search_path` of ours.
 */
import { pgSchema } from "drizzle-orm/pg-core";
import { MCP_TASK_TABLE } from "../kernel/mcp-task-rows.js";
import { CONFIGURATION_TABLES, STORE_TABLES } from "../kernel/tables.js";
import { pgTablesOf } from "./postgres-table.js";

const TABLES = { ...STORE_TABLES, ...CONFIGURATION_TABLES };

/** The store's tables, bound to one schema. */
export type PostgresTables = ReturnType<typeof pgTablesOf<typeof TABLES & { mcpTasks: typeof MCP_TASK_TABLE }, string>>;

/**
 * The tables bound to `schema` (with the MCP task store's table, whose migrations are its own), so queries name it (`"schema"."kv_entries"`).
 *
 * @example
 * const tables = postgresTables("steamharness");
 * await db.select().from(tables.kvEntries);
 */
export function postgresTables(schema: string): PostgresTables {
  return pgTablesOf({ ...TABLES, mcpTasks: MCP_TASK_TABLE }, pgSchema(schema).table);
}

// Unqualified tables, for drizzle-kit only: the generated migrations name no schema.
export const { kvEntries, knowledgeDocuments, managedFiles, persistentValues, configurationProjects, configurations, configurationAccounts, budgetRows, budgetReservations, apiKeys, apiTenants, apiRateWindows, apiSlots, approvalRequests, approvalDecisions, approvalAudit } = pgTablesOf(TABLES);
