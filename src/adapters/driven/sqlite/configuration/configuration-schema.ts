/**
 * The project configuration database (CFG-1): one file under the data dir shared by every local
 * host, its tables built from the definitions both dialects share (kernel/tables.ts).
 * Migrations: `npx drizzle-kit generate --config drizzle.configuration.config.ts`.
 */
import { CONFIGURATION_TABLES } from "../../kernel/tables.js";
import { sqliteTablesOf } from "../shared/sqlite-table.js";

/** The configuration database's tables. */
export type ConfigurationTables = ReturnType<typeof configurationTables>;

/**
 * The tables, built on first use with the lazily loaded drizzle (PERF-1).
 *
 * @example
 * const { configurationProjects } = configurationTables();
 */
export const configurationTables = sqliteTablesOf(CONFIGURATION_TABLES);
