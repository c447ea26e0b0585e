/**
 * The memory family's stores that are SQLite's on an in-memory database (ARCH-8): knowledge,
 * values and budgets (for `MemoryStorage`), approvals, API keys, project configurations and
 * accounts, MCP tasks — each the SQLite store on {@link openMemoryDatabase}, with SQLite's rules
 * by construction and nothing on disk. `steamharness/memory` exports them under the memory names.
 */
import type { ApiKeyStore } from "../../../../ports/api-keys.js";
import type { ApprovalStore } from "../../../../ports/approval-store.js";
import type { BudgetLedger } from "../../../../ports/budget-ledger.js";
import type { Clock } from "../../../../ports/clock.js";
import type { ConfigurationAccountStore } from "../../../../ports/configuration-accounts.js";
import type { KnowledgeStore } from "../../../../ports/knowledge-store.js";
import type { McpTaskStore } from "../../../../ports/mcp-task-store.js";
import type { PersistentValueStore } from "../../../../ports/persistent-value-store.js";
import type { ProjectConfigurationStore } from "../../../../ports/project-configuration-store.js";
import { createApiKeyStore, sqlApiKeyRows } from "../../kernel/api-keys.js";
import { createApprovalStore, sqlApprovalRows } from "../../kernel/approval-store.js";
import { createBudgetLedger } from "../../kernel/budget-ledger.js";
import { sqlConfigurationAccounts } from "../../kernel/configuration-accounts.js";
import { sqlStoragePorts } from "../../kernel/storage-options.js";
import { createSystemClock } from "../../system/clock.js";
import { createKeySecrets } from "../../system/key-secrets.js";
import { configurationTables } from "../configuration/configuration-schema.js";
import { sqliteConfigurationStoreOn } from "../configuration/sqlite-project-configuration-store.js";
import { sqliteMcpTaskStoreOn } from "../mcp-tasks/sqlite-mcp-task-store.js";
import { sqliteSqlDriver } from "../shared/sqlite-sql-driver.js";
import { storeTables } from "../store/schema.js";
import type { StoreDatabase } from "../store/sqlite-database.js";
import { createSqliteBudgetRows } from "../store/sqlite-budget-ledger.js";
import { sqliteFullText } from "../store/sqlite-knowledge-store.js";
import { sqliteCall } from "../store/sqlite-support.js";
import { onFirstUse, openMemoryDatabase } from "./memory-database.js";

/** A fresh in-memory store database with its row driver and the SQLite stores' call. */
function memoryStore(clock: Clock = createSystemClock()) {
  const opened = openMemoryDatabase("");
  return { ...opened, driver: sqliteSqlDriver(opened.db, storeTables(), clock), call: sqliteCall(opened.state) };
}

/**
 * `MemoryStorage`'s knowledge, values and budget ledger: the SQLite store's, on one in-memory
 * store database opened at the first statement (the ledger prepares its own at its first call).
 * Nothing is closed: like the maps they replace, they stay usable for as long as they are
 * referenced, and the connection is freed with them.
 *
 * @example
 * const { knowledge, values, budgets } = memoryStorePorts(createSystemClock());
 */
export function memoryStorePorts(clock: Clock): { knowledge: KnowledgeStore; values: PersistentValueStore; budgets: BudgetLedger } {
  const { db, client, state, driver, call } = memoryStore(clock);
  const { knowledge, values } = sqlStoragePorts(driver, call, sqliteFullText);
  // The store's tables without drizzle's relational schema, which the ledger does not use.
  const rows = onFirstUse(() => createSqliteBudgetRows({ db: db as unknown as StoreDatabase, sqlite: client, clock, state }));
  return { knowledge, values, budgets: createBudgetLedger(rows, call) };
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
  return memoryStorePorts(createSystemClock()).budgets;
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
  const { driver, call, close } = memoryStore();
  return createApprovalStore(sqlApprovalRows(driver), createKeySecrets().digest, call, close);
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
  const { driver, call, close } = memoryStore();
  return createApiKeyStore(sqlApiKeyRows(driver), createKeySecrets(), call, close);
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
  const { db, state, close } = openMemoryDatabase("configuration");
  return sqliteConfigurationStoreOn(db, state, "", options.clock ?? createSystemClock(), close);
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
  const { db, state, close } = openMemoryDatabase("configuration");
  return sqlConfigurationAccounts(sqliteSqlDriver(db, configurationTables(), options.clock ?? createSystemClock()), sqliteCall(state), close);
}

/**
 * The in-memory MCP task store (MCP-13), one process only: the SQLite task store on an in-memory
 * task database ({@link openMemoryDatabase}).
 *
 * @example
 * const tasks = createMemoryMcpTaskStore();
 */
export function createMemoryMcpTaskStore(): McpTaskStore {
  return sqliteMcpTaskStoreOn(openMemoryDatabase("mcp-tasks"));
}
