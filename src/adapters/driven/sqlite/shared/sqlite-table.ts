import { index, integer, primaryKey, sqliteTable, text, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { TableDefinition } from "../../kernel/table-definition.js";

const KINDS = { text: (name: string) => text(name), millis: (name: string) => integer(name), json: (name: string) => text(name) };

/**
 * The SQLite drizzle table of a definition shared with PostgreSQL (`json` columns are text).
 *
 * @example
 * export const mcpTasks = sqliteTableOf(MCP_TASK_TABLE);
 */
export function sqliteTableOf(table: TableDefinition) {
  const columns = Object.fromEntries(Object.entries(table.columns).map(([key, column]) => [key, column.nullable ? KINDS[column.kind](column.name) : KINDS[column.kind](column.name).notNull()]));
  return sqliteTable(table.name, columns, (built) => {
    const of = (keys: readonly string[]) => keys.map((key) => built[key] as SQLiteColumn) as [SQLiteColumn, ...SQLiteColumn[]];
    return [primaryKey({ columns: of(table.primaryKey) }), ...Object.entries(table.indexes).map(([name, keys]) => index(name).on(...of(keys)))];
  });
}
