import type { BudgetLedger } from "../ports/budget-ledger.js";
import type { KnowledgeStore } from "../ports/knowledge-store.js";
import type { KvStore } from "../ports/kv-store.js";
import type { ManagedFileStore } from "../ports/managed-file-store.js";
import type { PersistentValueStore } from "../ports/persistent-value-store.js";
import type { SessionBackend } from "../ports/session-backend.js";
import type { Storage } from "../ports/storage.js";
import type { StorageOptions } from "../adapters/driven/kernel/storage-options.js";
import { createMemoryBudgetLedger } from "../adapters/driven/memory/memory-budget-ledger.js";
import { createMemoryKnowledgeStore } from "../adapters/driven/memory/memory-knowledge-store.js";
import { createMemoryManagedFileStore } from "../adapters/driven/memory/memory-managed-file-store.js";
import { createMemoryPersistentValueStore } from "../adapters/driven/memory/memory-persistent-value-store.js";
import { createMemorySessionBackend } from "../adapters/driven/memory/memory-session-backend.js";
import { openMemoryStores } from "../adapters/driven/sqlite/memory/memory-stores.js";

/** Options of {@link MemoryStorage}. */
export interface MemoryStorageOptions extends StorageOptions {}

/**
 * Every store port in memory: the storage for tests and short-lived runs. Nothing survives the
 * process and nothing reaches the disk. The stores of rows are the SQLite store's on an in-memory
 * database (ARCH-8: one set of rules); agent sessions, their leases and session-host records,
 * managed files and budgets are kept as objects (`sessions` is an in-memory backend, not durable).
 *
 * @example
 * const storage = new MemoryStorage();
 * await storage.kv.set({ projectId: "p" }, "k", 1);
 * await storage.close();
 */
export class MemoryStorage implements Storage {
  readonly kv: KvStore;
  readonly knowledge: KnowledgeStore;
  readonly files: ManagedFileStore;
  readonly values: PersistentValueStore;
  readonly sessions: SessionBackend = createMemorySessionBackend();
  readonly budgets: BudgetLedger = createMemoryBudgetLedger();
  readonly #stores: ReturnType<typeof openMemoryStores>;

  constructor(options: MemoryStorageOptions = {}) {
    this.#stores = openMemoryStores({ clock: options.clock });
    this.kv = this.#stores.kv;
    this.knowledge = createMemoryKnowledgeStore({ clock: options.clock });
    this.files = createMemoryManagedFileStore({
      clock: options.clock,
      idSource: options.idSource,
      maxBytes: options.maxFileBytes,
    });
    this.values = createMemoryPersistentValueStore();
  }

  /** Closes the session backend (later session calls reject with `unavailable`) and frees the stores (later calls fail with `storage_failure`). Idempotent. */
  async close(): Promise<void> {
    try {
      await this.sessions.close();
    } finally {
      await this.#stores.close();
    }
  }
}
