/**
 * A table defined once for both SQL dialects (ARCH-8): each family builds its drizzle table from
 * the same definition (`sqlite/shared/sqlite-table.ts`, `postgres/postgres-table.ts`), so the
 * two cannot drift apart. Kinds map to each dialect's type: `text` to text, `millis` (epoch ms)
 * to SQLite `integer` / PostgreSQL `bigint`, `json` to SQLite text / PostgreSQL `jsonb`.
 */

/** A column: its SQL name, kind and whether it may be null. */
export interface ColumnDefinition {
  name: string;
  kind: "text" | "millis" | "json";
  nullable?: true;
}

/** A table: its name, columns (by property name), primary key and named indexes (property names). */
export interface TableDefinition<C extends string = string> {
  name: string;
  columns: Record<C, ColumnDefinition>;
  primaryKey: readonly C[];
  indexes: Record<string, readonly C[]>;
}

/**
 * Checks a definition's shape and keeps its column names as a type.
 *
 * @example
 * const table = defineTable({ name: "t", columns: { id: { name: "id", kind: "text" } }, primaryKey: ["id"], indexes: {} });
 */
export function defineTable<T extends Record<string, ColumnDefinition>>(table: { name: string; columns: T; primaryKey: readonly (keyof T & string)[]; indexes: Record<string, readonly (keyof T & string)[]> }): TableDefinition<keyof T & string> {
  return table;
}
