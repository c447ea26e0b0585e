import type { Storage } from "../../../ports/storage.js";
import { createRandomIdSource } from "../system/id-source.js";
import type { PostgresConnectionOptions } from "./postgres-database.js";
import { postgresFullText } from "./postgres-knowledge-store.js";
import { createManagedFileStore } from "../kernel/managed-file-store.js";
import { fileMachine } from "../system/file-source.js";
import { openPostgresStore } from "./postgres-sql-driver.js";
import { createPostgresBudgetLedger } from "./postgres-budget-ledger.js";
import { sqlStoragePorts, type StorageOptions } from "../kernel/storage-options.js";
import { createPostgresSessionBackend, type PostgresSessionBackendOptions } from "./sessions/postgres-session-backend.js";

/** Options of {@link createPostgresStorage}. */
export interface PostgresStorageOptions extends PostgresConnectionOptions, StorageOptions {
  /** Options of the session backend (`storage.sessions`): lease connection budget, keepalive. */
  sessions?: Pick<PostgresSessionBackendOptions, "leaseConnection" | "maxLeaseConnections" | "maxIdleLeaseConnections" | "keepAlive">;
}

/**
 * The PostgreSQL storage: KV, knowledge (PostgreSQL full-text search), managed files, persistent
 * values and token usage in the tables of one schema (`schema`, default `"steamharness"`), so
 * several hosts and processes can share one database. Async because it applies pending
 * migrations on open (under an advisory lock: concurrent opens are safe). Durable agent
 * sessions live in the same schema: `sessions` is a {@link createPostgresSessionBackend} on the
 * same pool (leases held on connections of their own; see docs/postgres-sessions.md).
 *
 * Pass `connectionString` (a pool is made and `close()` ends it) or a host's `pool` (used as is
 * and left open by `close()`). Opening faults throw `storage_failure` with the driver's error as
 * `cause`; so do later faults of each port.
 *
 * @example
 * const storage = await createPostgresStorage({ connectionString: "postgres://app@db.internal/app" });
 * await storage.knowledge.upsert("p", { documentId: "faq", title: "FAQ", markdown: "…" });
 * await storage.close();
 */
export async function createPostgresStorage(options: PostgresStorageOptions = {}): Promise<Storage> {
  const store = await openPostgresStore(options, options.clock);
  const sessions = createPostgresSessionBackend({
    ...options.sessions,
    pool: store.pool,
    schema: store.schema,
    ...(options.connectionString === undefined ? {} : { connectionString: options.connectionString }),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
  });
  let closing: Promise<void> | undefined;
  return {
    ...sqlStoragePorts(store.driver, store.call, postgresFullText),
    files: createManagedFileStore(store, { idSource: options.idSource ?? createRandomIdSource(), machine: fileMachine, maxBytes: options.maxFileBytes }),
    budgets: createPostgresBudgetLedger(store),
    sessions,
    close: () => (closing ??= sessions.close().then(store.close)),
  };
}
