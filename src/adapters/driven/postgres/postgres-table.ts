import { bigint, index, jsonb, pgTable, primaryKey, text, type PgColumn } from "drizzle-orm/pg-core";
import type { TableDefinition } from "../kernel/table-definition.js";

const KINDS = { text: (name: string) => text(name), millis: (name: string) => bigint(name, { mode: "number" }), json: (name: string) => jsonb(name) };

/**
 * The PostgreSQL drizzle table of a definition shared with SQLite (`millis` is `bigint`, `json` is `jsonb`).
 *
 * @example
 * export const mcpTasks = pgTableOf(MCP_TASK_TABLE);
 */
export function pgTableOf(table: TableDefinition) {
  const columns = Object.fromEntries(Object.entries(table.columns).map(([key, column]) => [key, column.nullable ? KINDS[column.kind](column.name) : KINDS[column.kind](column.name).notNull()]));
  return pgTable(table.name, columns, (built) => {
    const of = (keys: readonly string[]) => keys.map((key) => built[key] as PgColumn) as [PgColumn, ...PgColumn[]];
    return [primaryKey({ columns: of(table.primaryKey) }), ...Object.entries(table.indexes).map(([name, keys]) => index(name).on(...of(keys)))];
  });
}
