/**
 * The drizzle tables of PostgreSQL agent sessions (SES-1, SES-2, HOST-1), built from their
 * definitions in kernel/session-schema.ts: every session's append-only event log, its head row
 * and latest snapshot, and each conversation's session-host record. Migrations in
 * `drizzle/postgres-sessions/` are generated from the unqualified tables exported here with
 * `npx drizzle-kit generate --config drizzle.postgres-sessions.config.ts`; like the store's, they
 * name no schema and apply to the schema `search_path` points at while migrating. At run time
 * {@link postgresSessionTables} binds the tables to the configured schema.
 */
import { pgSchema } from "drizzle-orm/pg-core";
import { POSTGRES_SESSION_TABLES } from "../../kernel/session-schema.js";
import { pgTablesOf } from "../postgres-table.js";

/** The session tables, bound to one schema. */
export type PostgresSessionTables = ReturnType<typeof pgTablesOf<typeof POSTGRES_SESSION_TABLES, string>>;

/**
 * The session tables bound to `schema`, so every query names it.
 *
 * @example
 * const tables = postgresSessionTables("steamharness");
 * await db.select().from(tables.sessions);
 */
export function postgresSessionTables(schema: string): PostgresSessionTables {
  return pgTablesOf(POSTGRES_SESSION_TABLES, pgSchema(schema).table);
}

// Unqualified tables, for drizzle-kit only: the generated migrations name no schema.
export const { sessions, sessionEvents, sessionSnapshots, hostRecords, hostTasks, hostContexts, hostSettings, hostCommands, hostTurnItems } = pgTablesOf(POSTGRES_SESSION_TABLES);
