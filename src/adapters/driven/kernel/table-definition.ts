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

/** A column's type, mapped to each dialect's own (`boolean` and `tsvector`: PostgreSQL only). */
export type ColumnKind = "text" | "integer" | "bigint" | "json" | "bytes" | "boolean" | "tsvector";

/** A column: its SQL name, kind and constraints. */
export interface ColumnDefinition {
  name: string;
  kind: ColumnKind;
  nullable?: true;
  default?: string | number | boolean;
  /** A column `UNIQUE` constraint (drizzle names it `<table>_<column>_unique`), in both dialects or one. */
  unique?: true | Dialect;
  /** SQLite `INTEGER PRIMARY KEY AUTOINCREMENT`. */
  autoIncrement?: true;
  /** PostgreSQL `GENERATED ALWAYS AS IDENTITY`. */
  identity?: true;
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
  /** Named `CHECK (<column> = <value>)` constraints (SQLite only: a single-row table). */
  checks?: Record<string, { column: C; equals: number }>;
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

/** An index builder (`index(name)` or `uniqueIndex(name)`) of either dialect. */
interface IndexBuilder<Col> {
  on(...columns: [Col, ...Col[]]): unknown;
  using?(method: string, ...columns: [Col, ...Col[]]): unknown;
}

/** A dialect's drizzle: its column builder per kind and its table, key and index functions. */
export interface DrizzleDialect<Col> {
  dialect: Dialect;
  /** drizzle's column builder of each kind (its builder types differ per dialect and kind, so they are not spelled here). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  kinds: Record<ColumnKind, (name: string) => any>;
  table(name: string, columns: Record<string, unknown>, extra: (built: Record<string, Col>) => unknown[]): unknown;
  primaryKey(config: { columns: [Col, ...Col[]] }): unknown;
  index(name: string): IndexBuilder<Col>;
  uniqueIndex(name: string): IndexBuilder<Col>;
  /** `CHECK (column = equals)`, for a dialect whose tables have checks. */
  check?(name: string, column: Col, equals: number): unknown;
}

/**
 * The drizzle table of a definition, built with one dialect's drizzle: a one-column primary key
 * is a column constraint (drizzle's `.primaryKey()`), several a table constraint. Each dialect's
 * builder types the result (`sqliteTableOf`, `pgTableOf`).
 *
 * @example
 * const table = drizzleTableOf(MCP_TASK_TABLE, { dialect: "postgres", kinds, table: pgTable, primaryKey, index, uniqueIndex });
 */
export function drizzleTableOf<Col>(table: TableDefinition, drizzle: DrizzleDialect<Col>): unknown {
  const included = (only: Dialect | undefined) => only === undefined || only === drizzle.dialect;
  const keys = Array.isArray(table.primaryKey) ? (table.primaryKey as readonly string[]) : (table.primaryKey as Record<Dialect, readonly string[]>)[drizzle.dialect];
  const single = keys.length === 1 ? keys[0] : undefined;
  const columns = Object.fromEntries(
    Object.entries(table.columns)
      .filter(([, column]) => included(column.only))
      .map(([key, column]) => {
        let built = drizzle.kinds[column.kind](column.name);
        if (key === single) built = built.primaryKey(...(column.autoIncrement ? [{ autoIncrement: true as const }] : []));
        else if (!column.nullable) built = built.notNull();
        if (column.identity) built = built.generatedAlwaysAsIdentity();
        if (column.default !== undefined) built = built.default(column.default);
        if (column.unique === true || column.unique === drizzle.dialect) built = built.unique();
        return [key, built];
      }),
  );
  const indexes = Object.entries(table.indexes ?? {})
    .map(([name, index]) => ({ name, ...(Array.isArray(index) ? { columns: index as readonly string[] } : (index as IndexDefinition)) }))
    .filter((index) => included(index.only));
  return drizzle.table(table.name, columns, (built) => {
    const of = (names: readonly string[]) => names.map((name) => built[name]!) as [Col, ...Col[]];
    return [
      ...(single === undefined ? [drizzle.primaryKey({ columns: of(keys) })] : []),
      ...indexes.map((spec) => {
        const named = (spec.unique ? drizzle.uniqueIndex : drizzle.index)(spec.name);
        return spec.using ? named.using!(spec.using, ...of(spec.columns)) : named.on(...of(spec.columns));
      }),
      ...Object.entries(table.checks ?? {}).map(([name, { column, equals }]) => drizzle.check!(name, built[column]!, equals)),
    ];
  });
}

/**
 * A column builder of one kind, spelled as drizzle's are: `text("project_id")`,
 * `bigint("expires_at", { nullable: true })`; the name and options stay literal types.
 *
 * @example
 * const text = columnOf("text");
 * const columns = { projectId: text("project_id"), note: text("note", { nullable: true }) };
 */
export function columnOf<K extends ColumnKind>(kind: K) {
  return <const N extends string, const M extends Omit<ColumnDefinition, "name" | "kind"> = {}>(name: N, more?: M) => ({ ...more, name, kind }) as { name: N; kind: K } & M;
}
