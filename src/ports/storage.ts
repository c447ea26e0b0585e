import type { KnowledgeStore } from "./knowledge-store.js";
import type { KvNamespace, KvStore } from "./kv-store.js";
import type { ManagedFileStore } from "./managed-file-store.js";
import type { PersistentValueStore } from "./persistent-value-store.js";
import type { SessionStoreOpener } from "./session-store.js";
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
   * Directory for durable agent session files; `undefined` means sessions are kept in memory
   * (SES-6) unless a node names a `databasePath`.
   */
  agentStoreDir?: string;
  /**
   * Opens the durable sessions under `agentStoreDir` (and named `databasePath`s) for runs, when
   * the storage keeps them itself; without it a run opens its session file for the run only.
   */
  sessions?: SessionStoreOpener;
  /**
   * The token-usage recorder of a namespace, when the storage records usage better than
   * `createKvTokenUsage(kv, namespace)` (the default): same reserved keys, e.g. in one transaction.
   */
  tokenUsage?(namespace: KvNamespace): TokenUsageRecorder;
  /** Releases handles (database connections). Idempotent. */
  close(): Promise<void>;
}
