import type { BudgetLedger } from "./budget-ledger.js";
import type { KnowledgeStore } from "./knowledge-store.js";
import type { KvNamespace, KvStore } from "./kv-store.js";
import type { ManagedFileStore } from "./managed-file-store.js";
import type { PersistentValueStore } from "./persistent-value-store.js";
import type { SessionBackend } from "./session-backend.js";
import type { TokenUsageRecorder } from "./token-usage.js";

/**
 * The bundle of store ports a node runs with. `MemoryStorage` and `createSqliteStorage` implement
 * it; hosts may assemble their own from any adapters that pass the contract suites.
 */
export interface Storage {
  kv: KvStore;
  knowledge: KnowledgeStore;
  files: ManagedFileStore;
  values: PersistentValueStore;
  /**
   * Where agent sessions, their leases and session-host records live (SES-1, SES-2, HOST-1): the
   * only switch for durability. A `durable` backend (SQLite, PostgreSQL) keeps conversation
   * sessions across processes; an in-memory one (MemoryStorage) as long as the storage object.
   * Absent: sessions are kept in memory per storage object.
   */
  sessions?: SessionBackend;
  /**
   * The token-usage recorder of a namespace, when the storage records usage better than
   * `createKvTokenUsage(kv, namespace)` (the default): same reserved keys, e.g. in one transaction.
   */
  tokenUsage?(namespace: KvNamespace): TokenUsageRecorder;
  /**
   * The budget ledger of this storage (BUD-1), shared by every process and host that opens the
   * same store. Absent: budgets are kept in memory per storage object (one process only).
   */
  budgets?: BudgetLedger;
  /** Releases handles (database connections). Idempotent. */
  close(): Promise<void>;
}
