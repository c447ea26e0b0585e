import type { HasDefault, NotNull } from "drizzle-orm";
import type { BuildColumns } from "drizzle-orm/column-builder";
import { bigint, boolean, customType, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, type PgBigInt53BuilderInitial, type PgBooleanBuilderInitial, type PgColumn, type PgCustomColumnBuilder, type PgIntegerBuilderInitial, type PgJsonbBuilderInitial, type PgTableFn, type PgTableWithColumns, type PgTextBuilderInitial } from "drizzle-orm/pg-core";
import { drizzleTableOf, type ColumnDefinition, type DialectColumns, type DrizzleDialect, type TableDefinition } from "../kernel/table-definition.js";

/** Binary column (drizzle 0.45's pg-core has no built-in `bytea`). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });
/** A full-text vector, written as tsvector input text and never read back. */
const tsvector = customType<{ data: string; driverData: string }>({ dataType: () => "tsvector" });

const KINDS = { text, integer, bigint: (name: string) => bigint(name, { mode: "number" }), json: jsonb, bytes: bytea, boolean, tsvector };
type Custom<T> = PgCustomColumnBuilder<{ name: ""; dataType: "custom"; columnType: "PgCustomColumn"; data: T; driverParam: T; enumValues: undefined }>;
/** Each kind's PostgreSQL builder. */
type Kinds = { text: PgTextBuilderInitial<"", [string, ...string[]]>; integer: PgIntegerBuilderInitial<"">; bigint: PgBigInt53BuilderInitial<"">; json: PgJsonbBuilderInitial<"">; bytes: Custom<Uint8Array>; boolean: PgBooleanBuilderInitial<"">; tsvector: Custom<string> };
type Nulls<C extends ColumnDefinition> = C extends { nullable: true } ? Kinds[C["kind"]] : NotNull<Kinds[C["kind"]]>;
type Column<C extends ColumnDefinition> = C extends { default: unknown } | { identity: true } ? HasDefault<Nulls<C>> : Nulls<C>;
type Columns<D extends TableDefinition> = { [K in keyof DialectColumns<D, "postgres">]: Column<DialectColumns<D, "postgres">[K]> };

/** The PostgreSQL drizzle table of definition `D`, in schema `S` (undefined: unqualified). */
export type PgTableOf<D extends TableDefinition, S extends string | undefined = undefined> = PgTableWithColumns<{ name: D["name"]; schema: S; columns: BuildColumns<D["name"], Columns<D>, "pg">; dialect: "pg" }>;

/**
 * The PostgreSQL drizzle table of a definition shared with SQLite, built with `tableFn`
 * (`pgTable`, or a `pgSchema(...).table` so every query names its schema).
 *
 * @example
 * const mcpTasks = pgTableOf(MCP_TASK_TABLE);
 * const bound = pgTableOf(MCP_TASK_TABLE, pgSchema("tenant_a").table);
 */
export function pgTableOf<D extends TableDefinition, S extends string | undefined = undefined>(table: D, tableFn: PgTableFn<S> = pgTable as PgTableFn<S>): PgTableOf<D, S> {
  const dialect: DrizzleDialect<PgColumn> = { dialect: "postgres", kinds: KINDS, table: tableFn as unknown as DrizzleDialect<PgColumn>["table"], primaryKey, index, uniqueIndex };
  return drizzleTableOf(table, dialect) as PgTableOf<D, S>;
}

/**
 * The PostgreSQL drizzle tables of a record of definitions, built with `tableFn`.
 *
 * @example
 * const { kvEntries } = pgTablesOf(STORE_TABLES, pgSchema("tenant_a").table);
 */
export function pgTablesOf<R extends Record<string, TableDefinition>, S extends string | undefined = undefined>(tables: R, tableFn: PgTableFn<S> = pgTable as PgTableFn<S>): { [K in keyof R]: PgTableOf<R[K], S> } {
  return Object.fromEntries(Object.entries(tables).map(([key, table]) => [key, pgTableOf(table, tableFn)])) as unknown as { [K in keyof R]: PgTableOf<R[K], S> };
}
