/**
 * The memory family's stores that are SQLite's on an in-memory database (ARCH-8): knowledge,
 * values, files and budgets (for `MemoryStorage`), approvals, API keys, project configurations and
 * accounts, MCP tasks, session-host records — each the SQLite store on {@link openMemoryDatabase}, with SQLite's rules
 * by construction and nothing on disk. `steamharness/memory` exports them under the memory names.
 */
import type { ApiKeyStore } from "../../../../ports/api-keys.js";
import type { ApprovalStore } from "../../../../ports/approval-store.js";
import type { BudgetLedger } from "../../../../ports/budget-ledger.js";
import type { Clock } from "../../../../ports/clock.js";
import type { ConfigurationAccountStore } from "../../../../ports/configuration-accounts.js";
import type { IdSource } from "../../../../ports/id-source.js";
import type { KnowledgeStore } from "../../../../ports/knowledge-store.js";
import type { ManagedFileStore } from "../../../../ports/managed-file-store.js";
import type { McpTaskStore } from "../../../../ports/mcp-task-store.js";
import type { PersistentValueStore } from "../../../../ports/persistent-value-store.js";
import type { ProjectConfigurationStore } from "../../../../ports/project-configuration-store.js";
import type { AgentSessionHostStore } from "../../../../ports/session-host-store.js";
import { createApiKeyStore } from "../../kernel/api-keys.js";
import { createApprovalStore } from "../../kernel/approval-store.js";
import { createBudgetLedger } from "../../kernel/budget-ledger.js";
import { sqlConfigurationAccounts } from "../../kernel/configuration-accounts.js";
import { sqlConfigurationStoreOn } from "../../kernel/configuration-rows.js";
import { createManagedFileStore, type FileContents } from "../../kernel/managed-file-store.js";
import { createSqlMcpTaskStore } from "../../kernel/mcp-task-rows.js";
import { sqlSessionHostStore } from "../../kernel/session-host-store.js";
import { sqlStoragePorts } from "../../kernel/storage-options.js";
import { fileMachine } from "../../system/file-source.js";
import { createKeySecrets } from "../../system/key-secrets.js";
import { configurationTables } from "../configuration/configuration-schema.js";
import { mcpTaskTables } from "../mcp-tasks/mcp-task-schema.js";
import { sessionHostTables, type SessionHostTables } from "../session-host/host-schema.js";
import type { SqliteStore } from "../shared/sqlite-sql-driver.js";
import { storeTables } from "../store/schema.js";
import { createSqliteBudgetRows } from "../store/sqlite-budget-ledger.js";
import { sqliteFullText } from "../store/sqlite-knowledge-store.js";
import { onFirstUse, openMemoryDatabase } from "./memory-database.js";

/** Memory's file contents: by SHA-256 in a map, one copy per distinct content. */
function contentMap(): FileContents {
  const contents = new Map<string, Uint8Array>();
  return {
    stage: async (bytes) => bytes.slice(),
    place: (staged, sha256) => void (contents.has(sha256) || contents.set(sha256, staged as Uint8Array)),
    discard: async () => {},
    read: async (sha256) => contents.get(sha256)!.slice(),
    drop: (sha256) => void contents.delete(sha256),
  };
}

/**
 * `MemoryStorage`'s knowledge, values, files and budget ledger: the SQLite store's, on one
 * in-memory store database opened at the first statement (the ledger prepares its own at its
 * first call), the files' bytes in a map by SHA-256. Nothing is closed: like the maps they
 * replace, they stay usable for as long as they are referenced, and the connection is freed with them.
 *
 * @example
 * const { knowledge, values, files, budgets } = memoryStorePorts({ clock: createSystemClock(), idSource: createRandomIdSource() });
 */
export function memoryStorePorts(options: { clock: Clock; idSource: IdSource; maxBytes?: number | undefined }): { knowledge: KnowledgeStore; values: PersistentValueStore; files: ManagedFileStore; budgets: BudgetLedger } {
  const store = openMemoryDatabase("", storeTables(), options.clock);
  const { knowledge, values } = sqlStoragePorts(store.driver, store.call, sqliteFullText);
  const files = createManagedFileStore(store, { idSource: options.idSource, machine: fileMachine, contents: contentMap(), maxBytes: options.maxBytes });
  return { knowledge, values, files, budgets: createBudgetLedger(store.driver, onFirstUse(() => createSqliteBudgetRows(store)), store.call) };
}

/**
 * The in-memory budget ledger (BUD-1), for tests and single-process hosts: the SQLite ledger on an
 * in-memory store database, with its triggers' one-statement reserve and finish.
 *
 * @example
 * const ledger = createMemoryBudgetLedger();
 * await ledger.reserve({ reservationId: "r1", limits: [{ scope: "run", id: "run-1", tokens: 1000 }], amount: { tokens: 400, costMicros: 0 }, at: Date.now() });
 */
export function createMemoryBudgetLedger(): BudgetLedger {
  const store = openMemoryDatabase("", storeTables());
  return createBudgetLedger(store.driver, onFirstUse(() => createSqliteBudgetRows(store)), store.call);
}

/**
 * The in-memory approval store (GOV-1), for tests and single-process hosts: the SQLite approval
 * store on an in-memory store database, so a request and its audit entries are one transaction
 * and the chains are SQLite's. `close()` frees it.
 *
 * @example
 * const permissions = createGovernedToolPermissions({ policy, store: createMemoryApprovalStore(), clock });
 */
export function createMemoryApprovalStore(): ApprovalStore {
  return createApprovalStore(openMemoryDatabase("", storeTables()), createKeySecrets().digest);
}

/**
 * The in-memory API-key store (BUD-4), for tests and single-process gateways: the SQLite key store
 * on an in-memory store database ({@link openMemoryDatabase}).
 *
 * @example
 * const keys = createMemoryApiKeyStore();
 * const { secret } = await keys.add({ id: "acme", requestsPerMinute: 60 }, Date.now());
 */
export function createMemoryApiKeyStore(): ApiKeyStore {
  return createApiKeyStore(openMemoryDatabase("", storeTables()), createKeySecrets());
}

/** Options of {@link createMemoryProjectConfigurationStore}. */
export interface MemoryProjectConfigurationStoreOptions {
  clock?: Clock;
}

/**
 * The in-memory project configuration store (CFG-1): the SQLite store on an in-memory
 * configuration database ({@link openMemoryDatabase}); a write is one transaction that reads the
 * project, applies the domain's rules and writes back. Nothing survives `close()` or the process.
 *
 * @example
 * const store = createMemoryProjectConfigurationStore();
 * await store.create("project-1", { configurationId: "main", name: "Main", values: {} });
 */
export function createMemoryProjectConfigurationStore(options: MemoryProjectConfigurationStoreOptions = {}): ProjectConfigurationStore {
  return sqlConfigurationStoreOn(openMemoryDatabase("configuration", configurationTables(), options.clock), "");
}

/**
 * The in-memory account store of the configuration server (CFG-4): the SQLite account store on an
 * in-memory configuration database, each account's projects in the same database keyed by
 * (account, project).
 *
 * @example
 * const accounts = createMemoryConfigurationAccounts();
 * await accounts.createAccount({ accountId: "a1", name: "team-a", tokenHash, createdAt: Date.now() });
 */
export function createMemoryConfigurationAccounts(options: { clock?: Clock } = {}): ConfigurationAccountStore {
  return sqlConfigurationAccounts(openMemoryDatabase("configuration", configurationTables(), options.clock));
}

/**
 * The in-memory MCP task store (MCP-13), one process only: the SQLite task store on an in-memory
 * task database ({@link openMemoryDatabase}).
 *
 * @example
 * const tasks = createMemoryMcpTaskStore();
 */
export function createMemoryMcpTaskStore(): McpTaskStore {
  return createSqlMcpTaskStore(openMemoryDatabase("mcp-tasks", mcpTaskTables()));
}

/** A conversation's in-memory host record (HOST-1 … HOST-7), shared by every store opened on it; see {@link createMemorySessionHostRecord}. */
export interface MemorySessionHostRecord {
  readonly kind: "memory-session-host-record";
}
const hostDatabases = new WeakMap<MemorySessionHostRecord, SqliteStore<SessionHostTables>>();

/**
 * A fresh, empty host record: the SQLite host record's tables on an in-memory database
 * ({@link openMemoryDatabase}), opened at its first statement and freed with the record.
 *
 * @example
 * const record = createMemorySessionHostRecord();
 */
export function createMemorySessionHostRecord(): MemorySessionHostRecord {
  const record = { kind: "memory-session-host-record" } as const;
  hostDatabases.set(record, openMemoryDatabase("session-host", sessionHostTables()));
  return record;
}

/**
 * The in-memory session-host store (HOST-1 … HOST-7): the kernel's host rows on the record's
 * in-memory database, SQLite's rules by construction. Several stores opened on one record share it
 * (as several processes share a SQLite record); closing one store leaves the record.
 *
 * @example
 * const store = createMemorySessionHostStore(createMemorySessionHostRecord());
 * await store.insertTask({ taskId: "t1", runId: "r1", targetId: 0, prompt: "hi", input: {}, status: "queued", detail: null });
 */
export function createMemorySessionHostStore(record: MemorySessionHostRecord): AgentSessionHostStore {
  const { driver, call } = hostDatabases.get(record)!;
  return sqlSessionHostStore(driver, "", call);
}
