/**
 * The durable session schema (SES-1): one SQLite file per session holds its append-only event
 * log, the latest snapshot and one meta row, built from their definitions in
 * kernel/session-schema.ts. Migrations are generated from these tables (drizzle-kit reads them
 * through `drizzle-kit-schema.ts`) with `npx drizzle-kit generate --config drizzle.session.config.ts`
 * into `drizzle/session/`.
 */
import { SQLITE_SESSION_TABLES } from "../../kernel/session-schema.js";
import { sqliteTablesOf } from "../shared/sqlite-table.js";

/** A session file's tables. */
export type SessionTables = ReturnType<typeof sessionTables>;

/**
 * The tables, built on first use with the lazily loaded drizzle (PERF-1).
 *
 * @example
 * const { sessionEvents } = sessionTables();
 */
export const sessionTables = sqliteTablesOf(SQLITE_SESSION_TABLES);
