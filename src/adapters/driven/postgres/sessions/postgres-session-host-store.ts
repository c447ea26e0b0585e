/**
 * A conversation's session-host record on PostgreSQL (HOST-1 … HOST-5, HOST-7): the kernel's host
 * rows (kernel/sql-session-host-rows.ts) in tables keyed by conversation id, so a host on one
 * machine and a `controlAgentSession` caller on another share it.
 */
import { eq } from "drizzle-orm";
import type { AgentSessionHostStore } from "../../../../ports/session-host-store.js";
import { createSessionHostStore } from "../../kernel/session-host-store.js";
import { sqlSessionHostRows } from "../../kernel/sql-session-host-rows.js";
import { postgresCall, type PostgresDb } from "../postgres-database.js";
import { postgresSqlDriver } from "../postgres-sql-driver.js";
import type { PostgresSessionTables } from "./session-schema.js";

/** Options of {@link createPostgresSessionHostStore}. */
export interface PostgresSessionHostStoreOptions {
  db: PostgresDb;
  tables: PostgresSessionTables;
  conversationId: string;
  now?: () => number;
}

/**
 * Makes sure the conversation has a host record; resolves whether it has one (`create: false`
 * only looks).
 *
 * @example
 * if (!(await ensureHostRecord(db, tables, "conv-1", false))) return null;
 */
export async function ensureHostRecord(db: PostgresDb, tables: PostgresSessionTables, conversationId: string, create: boolean, now = Date.now): Promise<boolean> {
  const { hostRecords } = tables;
  if (create) {
    await db.insert(hostRecords).values({ conversationId, createdAt: now() }).onConflictDoNothing();
    return true;
  }
  const [row] = await db.select({ id: hostRecords.conversationId }).from(hostRecords).where(eq(hostRecords.conversationId, conversationId));
  return row !== undefined;
}

/**
 * The host store of one conversation whose record exists (see {@link ensureHostRecord}). Faults
 * reject with `storage_failure`; calls after `close()` with `unavailable`.
 *
 * @example
 * const store = createPostgresSessionHostStore({ db, tables, conversationId: "conv-1" });
 * await store.enqueueCommand({ type: "cancel" });
 */
export function createPostgresSessionHostStore(options: PostgresSessionHostStoreOptions): AgentSessionHostStore {
  const driver = postgresSqlDriver(options.db, options.tables, { now: options.now ?? Date.now });
  return createSessionHostStore(sqlSessionHostRows(driver, options.conversationId, () => {}), postgresCall({ closed: false }));
}
