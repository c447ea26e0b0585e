import type { BudgetLedger } from "../ports/budget-ledger.js";
import type { KnowledgeStore } from "../ports/knowledge-store.js";
import type { KvStore } from "../ports/kv-store.js";
import type { ManagedFileStore } from "../ports/managed-file-store.js";
import type { PersistentValueStore } from "../ports/persistent-value-store.js";
import type { SessionBackend } from "../ports/session-backend.js";
import type { Storage } from "../ports/storage.js";
import { createMemoryKvStore } from "../adapters/driven/memory/memory-kv-store.js";
import { createMemorySessionBackend } from "./memory-session-backend.js";
import { memoryStorePorts } from "../adapters/driven/sqlite/memory/memory-stores.js";
import type { StorageOptions } from "../adapters/driven/kernel/storage-options.js";
import { createSystemClock } from "../adapters/driven/system/clock.js";
import { createRandomIdSource } from "../adapters/driven/system/id-source.js";

/** Options of {@link MemoryStorage}. */
export interface MemoryStorageOptions extends StorageOptions {}

/**
 * Every store port in memory: the reference implementation the contract suites are written
 * against, and the storage for tests and short-lived runs. Nothing survives the process, and
 * nothing touches the disk; agent sessions, their leases and session-host records stay in memory
 * too (`sessions` is an in-memory backend, not durable). A composition (ARCH-8): the KV store and
 * sessions are the memory family's maps (the KV store is on every run's path, where a SQL step
 * costs several times a map's); knowledge, values, files (their bytes in a map) and the budget
 * ledger are the SQLite store's on an in-memory database, opened by the first of them used.
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
  readonly budgets: BudgetLedger;

  constructor(options: MemoryStorageOptions = {}) {
    this.kv = createMemoryKvStore({ clock: options.clock });
    const ports = memoryStorePorts({ clock: options.clock ?? createSystemClock(), idSource: options.idSource ?? createRandomIdSource(), maxBytes: options.maxFileBytes });
    ({ knowledge: this.knowledge, values: this.values, files: this.files, budgets: this.budgets } = ports);
  }

  /** Closes the session backend (later session calls reject with `unavailable`). Idempotent. */
  async close(): Promise<void> {
    await this.sessions.close();
  }
}
