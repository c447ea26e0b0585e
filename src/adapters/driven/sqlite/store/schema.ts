/**
 * The drizzle tables of the SQLite store, built from the definitions both dialects share
 * (kernel/tables.ts). Migrations in `/drizzle` are generated from them with
 * `npx drizzle-kit generate` (which reads them through `drizzle-kit-schema.ts`); the FTS5 index
 * and its triggers are a custom migration because drizzle cannot describe virtual tables.
 */
import { STORE_TABLES } from "../../kernel/tables.js";
import { sqliteTablesOf } from "../shared/sqlite-table.js";

/** The store's tables. */
export type StoreTables = ReturnType<typeof storeTables>;

/**
 * The tables, built on first use with the lazily loaded drizzle (PERF-1).
 *
 * @example
 * const { kvEntries } = storeTables();
 */
export const storeTables = sqliteTablesOf(STORE_TABLES);
