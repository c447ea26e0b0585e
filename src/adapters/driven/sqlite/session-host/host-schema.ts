/**
 * The resident session host's own schema: one SQLite file per conversation, next to its session
 * files, holding tasks, contexts, settings, the command inbox and each turn's output items, built
 * from their definitions in kernel/session-schema.ts. Migrations are generated with
 * `npx drizzle-kit generate --config drizzle.session-host.config.ts` into `drizzle/session-host/`.
 * Kept apart from the session log, whose events the host never writes.
 */
import { SQLITE_HOST_TABLES } from "../../kernel/session-schema.js";
import { sqliteTablesOf } from "../shared/sqlite-table.js";

/** The session host's tables. */
export type SessionHostTables = ReturnType<typeof sessionHostTables>;

/**
 * The tables, built on first use with the lazily loaded drizzle (PERF-1).
 *
 * @example
 * const { hostTasks } = sessionHostTables();
 */
export const sessionHostTables = sqliteTablesOf(SQLITE_HOST_TABLES);
