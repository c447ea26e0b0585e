import type { BudgetLedger } from "../../../ports/budget-ledger.js";
import { createMemoryBudgetLedger } from "./memory-budget-ledger.js";
import type { KnowledgeStore } from "../../../ports/knowledge-store.js";
import type { KvStore } from "../../../ports/kv-store.js";
import type { ManagedFileStore } from "../../../ports/managed-file-store.js";
import type { PersistentValueStore } from "../../../ports/persistent-value-store.js";
import type { SessionBackend } from "../../../ports/session-backend.js";
import type { Storage } from "../../../ports/storage.js";
import { createMemoryKnowledgeStore } from "./memory-knowledge-store.js";
import { createMemoryKvStore } from "./memory-kv-store.js";
import { createMemoryManagedFileStore } from "./memory-managed-file-store.js";
import { createMemoryPersistentValueStore } from "./memory-persistent-value-store.js";
import { createMemorySessionBackend } from "./memory-session-backend.js";
import type { StorageOptions } from "../kernel/storage-options.js";

/** Options of {@link MemoryStorage}. */
export interface MemoryStorageOptions extends StorageOptions {}

/**
 * Every store port in memory: the reference implementation the contract suites are written
 * against, and the storage for tests and short-lived runs. Nothing survives the process;
 * agent sessions, their leases and session-host records stay in memory too (`sessions` is an
 * in-memory backend, not durable).
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

  constructor(options: MemoryStorageOptions = {}) {
    this.kv = createMemoryKvStore({ clock: options.clock });
    this.knowledge = createMemoryKnowledgeStore({ clock: options.clock });
    this.files = createMemoryManagedFileStore({
      clock: options.clock,
      idSource: options.idSource,
      maxBytes: options.maxFileBytes,
    });
    this.values = createMemoryPersistentValueStore();
  }

  /** Closes the session backend (later session calls reject with `unavailable`). Idempotent. */
  async close(): Promise<void> {
    await this.sessions.close();
  }
}
