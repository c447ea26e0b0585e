import type { ApprovalStore } from "../../../../ports/approval-store.js";
import type { BudgetLedger } from "../../../../ports/budget-ledger.js";
import type { Clock } from "../../../../ports/clock.js";
import type { KnowledgeStore } from "../../../../ports/knowledge-store.js";
import type { PersistentValueStore } from "../../../../ports/persistent-value-store.js";
import { createApprovalStore, sqlApprovalRows } from "../../kernel/approval-store.js";
import { createBudgetLedger } from "../../kernel/budget-ledger.js";
import { sqlStoragePorts } from "../../kernel/storage-options.js";
import { createSystemClock } from "../../system/clock.js";
import { createKeySecrets } from "../../system/key-secrets.js";
import { sqliteSqlDriver } from "../shared/sqlite-sql-driver.js";
import { storeTables } from "../store/schema.js";
import type { StoreDatabase } from "../store/sqlite-database.js";
import { createSqliteBudgetRows } from "../store/sqlite-budget-ledger.js";
import { sqliteFullText } from "../store/sqlite-knowledge-store.js";
import { sqliteCall } from "../store/sqlite-support.js";
import { onFirstUse, openMemoryDatabase } from "./memory-database.js";

/**
 * The memory family's knowledge, values and budget ledger (ARCH-8): the SQLite store's, on one
 * in-memory store database opened at the first statement ({@link openMemoryDatabase}). The ledger
 * prepares its statements at its first call. Nothing is closed: like the maps they replace, they
 * stay usable for as long as they are referenced, and the connection is freed with them.
 *
 * @example
 * const { knowledge, values, budgets } = memoryStorePorts(createSystemClock());
 */
export function memoryStorePorts(clock: Clock): { knowledge: KnowledgeStore; values: PersistentValueStore; budgets: BudgetLedger } {
  const { db, client, state } = openMemoryDatabase("");
  const call = sqliteCall(state);
  const { knowledge, values } = sqlStoragePorts(sqliteSqlDriver(db, storeTables(), clock), call, sqliteFullText);
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
  const { db, state, close } = openMemoryDatabase("");
  return createApprovalStore(sqlApprovalRows(sqliteSqlDriver(db, storeTables(), createSystemClock())), createKeySecrets().digest, sqliteCall(state), close);
}
