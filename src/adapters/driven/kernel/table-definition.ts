/**
 * A table defined once for both SQL dialects (ARCH-8): each family builds its drizzle table from
 * the same definition (`sqlite/shared/sqlite-table.ts`, `postgres/postgres-table.ts`), so the
 * two cannot drift apart. Kinds map to each dialect's type: `text` to text, `integer` to
 * `integer`, `bigint` (epoch ms, sizes, counters) to SQLite `integer` / PostgreSQL `bigint`,
 * `json` to SQLite text / PostgreSQL `jsonb`, `bytes` to SQLite `blob` / PostgreSQL `bytea`,
 * `tsvector` to PostgreSQL's full-text vector (PostgreSQL only). What only one dialect has (a
 * column, an index, its own primary key) says so with `only` or a per-dialect key list.
 */

/** The two SQL dialects. */
export type Dialect = "sqlite" | "postgres";

/** A column's type, mapped to each dialect's own. */
export type ColumnKind = "text" | "integer" | "bigint" | "json" | "bytes" | "tsvector";

/** A column: its SQL name, kind and constraints. */
export interface ColumnDefinition {
  name: string;
  kind: ColumnKind;
  nullable?: true;
  default?: string | number;
  /** A column `UNIQUE` constraint (drizzle names it `<table>_<column>_unique`), in both dialects or one. */
  unique?: true | Dialect;
  /** SQLite `INTEGER PRIMARY KEY AUTOINCREMENT`. */
  autoIncrement?: true;
  /** The one dialect that has this column. */
  only?: Dialect;
}

/** An index on columns (property names); `using: "gin"` is PostgreSQL's inverted index. */
export interface IndexDefinition<C extends string = string> {
  columns: readonly C[];
  unique?: true;
  using?: "gin";
  only?: Dialect;
}

/**
 * A table: its name, columns (by property name), primary key (one column: a column constraint,
 * as drizzle's `.primaryKey()`; several: a table constraint) and named indexes (a plain list of
 * property names is an ordinary index).
 */
export interface TableDefinition<C extends string = string> {
  name: string;
  columns: Record<C, ColumnDefinition>;
  primaryKey: readonly C[] | Readonly<Record<Dialect, readonly C[]>>;
  indexes?: Record<string, readonly C[] | IndexDefinition<C>>;
}

/**
 * Checks a definition's shape and keeps it literally as a type, so each dialect's builder types
 * the drizzle columns it makes (nullable, defaulted, dialect-only).
 *
 * @example
 * const table = defineTable({ name: "t", columns: { id: { name: "id", kind: "text" } }, primaryKey: ["id"] });
 */
export function defineTable<const D extends TableDefinition>(table: D & TableDefinition<keyof D["columns"] & string>): D {
  return table;
}

/** The columns of `D` one dialect has. */
export type DialectColumns<D extends TableDefinition, Of extends Dialect> = { [K in keyof D["columns"] as D["columns"][K] extends { only: Exclude<Dialect, Of> } ? never : K]: D["columns"][K] };

/**
 * What a dialect's builder needs from a definition: its columns of that dialect, its primary key
 * and its indexes, each index as `{ name, columns, unique?, using? }`.
 *
 * @example
 * const { columns, primaryKey, indexes } = tableShape(MCP_TASK_TABLE, "sqlite");
 */
export function tableShape(table: TableDefinition, dialect: Dialect) {
  const columns = Object.entries(table.columns).filter(([, column]) => column.only === undefined || column.only === dialect);
  const primaryKey = Array.isArray(table.primaryKey) ? (table.primaryKey as readonly string[]) : (table.primaryKey as Record<Dialect, readonly string[]>)[dialect];
  const indexes = Object.entries(table.indexes ?? {})
    .map(([name, index]) => ({ name, ...(Array.isArray(index) ? { columns: index as readonly string[] } : (index as IndexDefinition)) }))
    .filter((index) => index.only === undefined || index.only === dialect);
  const unique = (column: ColumnDefinition) => column.unique === true || column.unique === dialect;
  return { columns, primaryKey, indexes, unique };
}
