import type { $Type, HasDefault, NotNull } from "drizzle-orm";
import type { SQLiteBlobBufferBuilderInitial, SQLiteColumn, SQLiteIntegerBuilderInitial, SQLiteTableWithColumns, SQLiteTextBuilderInitial } from "drizzle-orm/sqlite-core";
import type { BuildColumns } from "drizzle-orm/column-builder";
import { tableShape, type ColumnDefinition, type DialectColumns, type TableDefinition } from "../../kernel/table-definition.js";
import { drizzleSqliteCore } from "./drizzle-modules.js";

type Text = SQLiteTextBuilderInitial<"", [string, ...string[]], undefined>;
/** Each kind's SQLite builder (`json` is text; the PostgreSQL-only `tsvector` never reaches here). */
type Kinds = { text: Text; integer: SQLiteIntegerBuilderInitial<"">; bigint: SQLiteIntegerBuilderInitial<"">; json: Text; bytes: $Type<SQLiteBlobBufferBuilderInitial<"">, Uint8Array>; tsvector: Text };
type Nulls<C extends ColumnDefinition> = C extends { nullable: true } ? Kinds[C["kind"]] : NotNull<Kinds[C["kind"]]>;
type Column<C extends ColumnDefinition> = C extends { default: unknown } | { autoIncrement: true } ? HasDefault<Nulls<C>> : Nulls<C>;
type Columns<D extends TableDefinition> = { [K in keyof DialectColumns<D, "sqlite">]: Column<DialectColumns<D, "sqlite">[K]> };

/** The SQLite drizzle table of definition `D`. */
export type SqliteTableOf<D extends TableDefinition> = SQLiteTableWithColumns<{ name: D["name"]; schema: undefined; columns: BuildColumns<D["name"], Columns<D>, "sqlite">; dialect: "sqlite" }>;

/**
 * The SQLite drizzle table of a definition shared with PostgreSQL, built with the lazily loaded
 * drizzle (PERF-1).
 *
 * @example
 * const mcpTasks = sqliteTableOf(MCP_TASK_TABLE);
 */
export function sqliteTableOf<D extends TableDefinition>(table: D): SqliteTableOf<D> {
  const { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } = drizzleSqliteCore();
  const kinds = { text, integer, bigint: integer, json: text, bytes: (name: string) => blob(name, { mode: "buffer" }), tsvector: text };
  const shape = tableShape(table, "sqlite");
  const single = shape.primaryKey.length === 1 ? shape.primaryKey[0] : undefined;
  const columns = Object.fromEntries(
    shape.columns.map(([key, column]) => {
      let built = kinds[column.kind](column.name) as ReturnType<typeof integer>;
      if (key === single) built = built.primaryKey(column.autoIncrement ? { autoIncrement: true } : {}) as typeof built;
      else if (!column.nullable) built = built.notNull() as typeof built;
      if (column.default !== undefined) built = built.default(column.default as number) as typeof built;
      if (shape.unique(column)) built = built.unique() as typeof built;
      return [key, built];
    }),
  );
  return sqliteTable(table.name, columns, (built) => {
    const of = (keys: readonly string[]) => keys.map((key) => built[key] as SQLiteColumn) as [SQLiteColumn, ...SQLiteColumn[]];
    return [
      ...(single === undefined ? [primaryKey({ columns: of(shape.primaryKey) })] : []),
      ...shape.indexes.map((spec) => (spec.unique ? uniqueIndex(spec.name) : index(spec.name)).on(...of(spec.columns))),
    ];
  }) as unknown as SqliteTableOf<D>;
}

/**
 * The SQLite drizzle tables of a record of definitions, built on first call and kept (drizzle is
 * loaded lazily, PERF-1).
 *
 * @example
 * const storeTables = sqliteTablesOf(STORE_TABLES);
 * const { kvEntries } = storeTables();
 */
export function sqliteTablesOf<R extends Record<string, TableDefinition>>(tables: R): () => { [K in keyof R]: SqliteTableOf<R[K]> } {
  let built: { [K in keyof R]: SqliteTableOf<R[K]> } | undefined;
  return () => (built ??= Object.fromEntries(Object.entries(tables).map(([key, table]) => [key, sqliteTableOf(table)])) as unknown as { [K in keyof R]: SqliteTableOf<R[K]> });
}
