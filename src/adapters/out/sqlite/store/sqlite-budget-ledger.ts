import type Database from "better-sqlite3";
import type { BudgetLedger } from "../../../../ports/budget-ledger.js";
import { createBudgetLedger, type BudgetDecision, type BudgetLedgerRows, type BudgetReservationRow, type BudgetRow } from "../../kernel/budget-ledger.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { storeTables } from "./schema.js";
import type { SqliteStoreContext } from "./sqlite-kv-store.js";
import { sqliteCall } from "./sqlite-support.js";

/** The store's context and its better-sqlite3 connection (the steps' native transaction). */
export type SqliteBudgetContext = SqliteStoreContext & { sqlite: Database.Database };

/**
 * The budget rows on SQLite (BUD-1): each step is one `BEGIN IMMEDIATE` transaction, which takes
 * the database's write lock before reading, so no other connection — in this process or another
 * on the same file — reads or writes budget rows between the step's check and its writes. Hot
 * statements are prepared once.
 *
 * @example
 * const rows = createSqliteBudgetRows({ ...context, sqlite });
 */
export function createSqliteBudgetRows({ db, sqlite, clock }: SqliteBudgetContext): BudgetLedgerRows {
  const { eq, sql } = drizzleOrm();
  const { budgetRows, budgetReservations } = storeTables();
  const getRow = db.select().from(budgetRows).where(eq(budgetRows.key, sql.placeholder("key"))).prepare();
  const getReservation = db.select().from(budgetReservations).where(eq(budgetReservations.id, sql.placeholder("id"))).prepare();
  const p = sql.placeholder;
  const putRow = db
    .insert(budgetRows)
    .values({ key: p("key"), spentTokens: p("spentTokens"), spentMicros: p("spentMicros"), reservedTokens: p("reservedTokens"), reservedMicros: p("reservedMicros"), grantedTokens: p("grantedTokens"), grantedMicros: p("grantedMicros") })
    .onConflictDoUpdate({
      target: budgetRows.key,
      set: { spentTokens: sql`excluded.spent_tokens`, spentMicros: sql`excluded.spent_micros`, reservedTokens: sql`excluded.reserved_tokens`, reservedMicros: sql`excluded.reserved_micros`, grantedTokens: sql`excluded.granted_tokens`, grantedMicros: sql`excluded.granted_micros` },
    })
    .prepare();
  const putReservation = db
    .insert(budgetReservations)
    .values({ id: p("id"), keys: p("keys"), tokens: p("tokens"), micros: p("micros"), state: p("state"), updatedAt: p("updatedAt") })
    .onConflictDoUpdate({ target: budgetReservations.id, set: { state: sql`excluded.state`, updatedAt: sql`excluded.updated_at` } })
    .prepare();
  const reservationOf = (id: string): BudgetReservationRow | null => {
    const row = getReservation.get({ id });
    return row ? { id: row.id, keys: JSON.parse(row.keys) as string[], tokens: row.tokens, micros: row.micros, state: row.state as BudgetReservationRow["state"] } : null;
  };
  // BUD-1 speed: one native transaction function for every step (better-sqlite3 caches its
  // BEGIN IMMEDIATE / COMMIT), instead of a wrapper built per call.
  const step = sqlite.transaction((reservationId: string, keysOf: Parameters<BudgetLedgerRows["step"]>[1], decide: BudgetDecision<unknown>) => {
    const reservation = reservationOf(reservationId);
    const locked = new Map<string, BudgetRow>();
    for (const key of keysOf(reservation)) {
      const row = getRow.get({ key });
      if (row) locked.set(key, row);
    }
    const writes = decide(reservation, locked);
    for (const row of writes.budgets) putRow.run({ ...row });
    if (writes.reservation) putReservation.run({ ...writes.reservation, keys: JSON.stringify(writes.reservation.keys), updatedAt: clock.now() });
    return writes.result;
  });
  return {
    step: (reservationId, keysOf, decide) => step.immediate(reservationId, keysOf, decide as BudgetDecision<unknown>) as never,
    read: (key) => getRow.get({ key }) ?? null,
  };
}

/**
 * The budget ledger of the SQLite storage (`storage.budgets`): rows in the store file, shared by
 * every process that opens the same store directory.
 *
 * @example
 * const ledger = createSqliteBudgetLedger({ ...context, sqlite });
 */
export function createSqliteBudgetLedger(context: SqliteBudgetContext): BudgetLedger {
  return createBudgetLedger(createSqliteBudgetRows(context), sqliteCall(context.state));
}
