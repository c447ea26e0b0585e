import type { $Type, HasDefault, NotNull } from "drizzle-orm";
import type { BuildColumns } from "drizzle-orm/column-builder";
import type { SQLiteBlobBufferBuilderInitial, SQLiteColumn, SQLiteIntegerBuilderInitial, SQLiteTableWithColumns, SQLiteTextBuilderInitial } from "drizzle-orm/sqlite-core";
import { drizzleTableOf, type ColumnDefinition, type DialectColumns, type DrizzleDialect, type TableDefinition } from "../../kernel/table-definition.js";
import { drizzleOrm, drizzleSqliteCore } from "./drizzle-modules.js";

type Text = SQLiteTextBuilderInitial<"", [string, ...string[]], undefined>;
/** Each kind's SQLite builder (`json` is text; the PostgreSQL-only `boolean` and `tsvector` never reach here). */
type Kinds = { text: Text; integer: SQLiteIntegerBuilderInitial<"">; bigint: SQLiteIntegerBuilderInitial<"">; json: Text; bytes: $Type<SQLiteBlobBufferBuilderInitial<"">, Uint8Array>; boolean: SQLiteIntegerBuilderInitial<"">; tsvector: Text };
type Nulls<C extends ColumnDefinition> = C extends { nullable: true } ? Kinds[C["kind"]] : NotNull<Kinds[C["kind"]]>;
type Column<C extends ColumnDefinition> = C extends { default: unknown } | { autoIncrement: true } ? HasDefault<Nulls<C>> : Nulls<C>;
type Columns<D extends TableDefinition> = { [K in keyof DialectColumns<D, "sqlite">]: Column<DialectColumns<D, "sqlite">[K]> };

/** The SQLite drizzle table of definition `D`. */
export type SqliteTableOf<D extends TableDefinition> = SQLiteTableWithColumns<{ name: D["name"]; schema: undefined; columns: BuildColumns<D["name"], Columns<D>, "sqlite">; dialect: "sqlite" }>;

let dialect: DrizzleDialect<SQLiteColumn> | undefined;

/**
 * The SQLite drizzle table of a definition shared with PostgreSQL, built with the lazily loaded
 * drizzle (PERF-1).
 *
 * @example
 * const mcpTasks = sqliteTableOf(MCP_TASK_TABLE);
 */
export function sqliteTableOf<D extends TableDefinition>(table: D): SqliteTableOf<D> {
  if (!dialect) {
    const { blob, check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } = drizzleSqliteCore();
    const { sql } = drizzleOrm();
    const kinds = { text, integer, bigint: integer, json: text, bytes: (name: string) => blob(name, { mode: "buffer" }), boolean: integer, tsvector: text };
    const equals = (name: string, column: SQLiteColumn, value: number) => check(name, sql`${column} = ${sql.raw(String(value))}`);
    dialect = { dialect: "sqlite", kinds, table: sqliteTable as DrizzleDialect<SQLiteColumn>["table"], primaryKey, index, uniqueIndex, check: equals };
  }
  return drizzleTableOf(table, dialect) as SqliteTableOf<D>;
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
