/**
 * The budget ledger's grants and reads on the SQL row driver (BUD-1, ARCH-8), written once for
 * SQLite and PostgreSQL. Each dialect adds its one-statement reserve and finish (SQLite's
 * triggers, PostgreSQL's functions): the hot path of every model call.
 */
import type { BudgetReservationRow } from "../../../domain/budget/budget-rules.js";
import type { BudgetLedgerRows } from "./budget-ledger.js";
import type { Awaitable } from "./store-call.js";
import { then, type SqlDriver, type SqlStatement } from "./sql-driver.js";

const ROW: SqlStatement<{ key: string }> = { mode: "get", build: (on, param) => on.db.select().from(on.tables.budgetRows).where(on.ops.eq(on.tables.budgetRows.key, param("key"))) };
const RESERVATION: SqlStatement<{ id: string }> = {
  mode: "get",
  build: ({ db, tables: { budgetReservations: r }, ops }, param) => db.select({ id: r.id, keys: r.keys, tokens: r.tokens, micros: r.micros, state: r.state }).from(r).where(ops.eq(r.id, param("id"))),
};

/**
 * The budget rows of `driver` (its tables: `budgetRows`, `budgetReservations`): a grant is one
 * transaction that records its id (an id known already, committed or not, makes the insert do
 * nothing: the grant is refused whole) and then adds to its budget row in place. `read` and
 * `reservation` are the reads a dialect's own reserve decides a refusal again with (synchronous
 * on SQLite).
 *
 * @example
 * const ledger = createBudgetLedger({ ...sqlBudgetRows(driver), ...createPostgresBudgetCalls(driver) }, postgresCall(state));
 */
export function sqlBudgetRows(driver: SqlDriver): Pick<BudgetLedgerRows, "grant" | "read"> & { reservation(id: string): Awaitable<BudgetReservationRow | null> } {
  const { budgetRows: rows, budgetReservations: reservations } = driver.tables;
  const { sql } = driver.ops;
  return {
    grant: (id, key, { tokens, costMicros: micros }) =>
      driver.transaction(function* (tx) {
        const granted = { id, keys: JSON.stringify([key]), tokens, micros, state: "granted", updatedAt: tx.clock.now() };
        if ((yield tx.all(tx.db.insert(reservations).values(granted).onConflictDoNothing().returning({ id: reservations.id }))).length === 0) return false;
        const row = { key, spentTokens: 0, spentMicros: 0, reservedTokens: 0, reservedMicros: 0, grantedTokens: tokens, grantedMicros: micros };
        yield tx.run(tx.db.insert(rows).values(row).onConflictDoUpdate({ target: rows.key, set: { grantedTokens: sql`${rows.grantedTokens} + excluded.granted_tokens`, grantedMicros: sql`${rows.grantedMicros} + excluded.granted_micros` } }));
        return true;
      }),
    read: (key) => then(driver.execute(ROW, { key }), (row) => row ?? null),
    reservation: (id) => then(driver.execute(RESERVATION, { id }), (row) => (row ? { ...row, keys: JSON.parse(row.keys) as string[] } : null)),
  };
}
