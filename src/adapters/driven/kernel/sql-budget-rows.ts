/**
 * The budget ledger's step and reads on the SQL row driver (BUD-1, ARCH-8), written once for
 * SQLite and PostgreSQL. Each dialect adds only its one-statement reserve and finish (SQLite's
 * triggers, PostgreSQL's functions): the hot path of every model call.
 */
import { emptyBudgetRow, type BudgetReservationRow, type BudgetRow } from "../../../domain/budget/budget-rules.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { BudgetLedgerRows } from "./budget-ledger.js";
import type { Awaitable } from "./store-call.js";
import { then, type SqlDriver, type SqlStatement, type SqlSteps } from "./sql-driver.js";

const ROW: SqlStatement<{ key: string }> = { mode: "get", build: (on, param) => on.db.select().from(on.tables.budgetRows).where(on.ops.eq(on.tables.budgetRows.key, param("key"))) };
const RESERVATION: SqlStatement<{ id: string }> = {
  mode: "get",
  build: ({ db, tables: { budgetReservations: r }, ops }, param) => db.select({ id: r.id, keys: r.keys, tokens: r.tokens, micros: r.micros, state: r.state }).from(r).where(ops.eq(r.id, param("id"))),
};
const reservationOf = (row: (Omit<BudgetReservationRow, "keys"> & { keys: string }) | undefined): BudgetReservationRow | null => (row ? { ...row, keys: JSON.parse(row.keys) as string[] } : null);

/**
 * The budget rows of `driver` (its tables: `budgetRows`, `budgetReservations`): a step is one
 * transaction that locks the budget rows it touches in key order (one `INSERT … ON CONFLICT DO
 * UPDATE … RETURNING`, which also creates absent rows, so two steps never deadlock and a first
 * reservation locks a row too) and, when the rows follow from it, the reservation first, before
 * the kernel decides. `read` and `reservation` are the reads a dialect's own reserve decides a
 * refusal again with (synchronous on SQLite).
 *
 * @example
 * const ledger = createBudgetLedger({ ...sqlBudgetRows(driver), ...ownReserveAndFinish }, postgresCall(state));
 */
export function sqlBudgetRows(driver: SqlDriver): Pick<BudgetLedgerRows, "step" | "read"> & { reservation(id: string): Awaitable<BudgetReservationRow | null> } {
  const { budgetRows, budgetReservations } = driver.tables;
  const { eq, sql } = driver.ops;
  const excluded = { spentTokens: sql`excluded.spent_tokens`, spentMicros: sql`excluded.spent_micros`, reservedTokens: sql`excluded.reserved_tokens`, reservedMicros: sql`excluded.reserved_micros`, grantedTokens: sql`excluded.granted_tokens`, grantedMicros: sql`excluded.granted_micros` };
  return {
    step: (reservationId, keysOf, decide) =>
      driver.transaction(function* (tx) {
        const locked = new Map<string, BudgetRow>();
        function* lock(keys: string[]): SqlSteps<void> {
          if (keys.length === 0) return;
          // The no-op update of a conflicting row takes its lock; RETURNING gives its current values.
          const rows = yield tx.all(tx.db.insert(budgetRows).values(keys.sort().map(emptyBudgetRow)).onConflictDoUpdate({ target: budgetRows.key, set: { key: sql`excluded.key` } }).returning());
          for (const row of rows as BudgetRow[]) locked.set(row.key, row);
        }
        // Keys known before the reservation is read (a reserve, an extend) are locked first; the
        // reservation is then read once, seeing a first reserve of the same id that committed meanwhile.
        const known = [...new Set(keysOf(null))];
        yield* lock(known);
        const read = tx.db.select({ id: budgetReservations.id, keys: budgetReservations.keys, tokens: budgetReservations.tokens, micros: budgetReservations.micros, state: budgetReservations.state }).from(budgetReservations).where(eq(budgetReservations.id, reservationId));
        const reservation = reservationOf(yield tx.get(known.length === 0 ? tx.forUpdate(read) : read));
        yield* lock([...new Set(keysOf(reservation))].filter((key) => !locked.has(key)));
        const { result, budgets, reservation: written } = decide(reservation, locked);
        // SQLite's finish trigger moves a hold that leaves `held`: rows written here as well would count it twice.
        if (reservation?.state === "held" && written && written.state !== "held") throw new SteamharnessError("internal", `[steamharness] [${tx.dialect}] a held reservation is finished by the ledger's finish, not by a step`);
        if (budgets.length > 0) yield tx.run(tx.db.insert(budgetRows).values(budgets).onConflictDoUpdate({ target: budgetRows.key, set: excluded }));
        if (written) {
          const row = { id: written.id, keys: JSON.stringify(written.keys), tokens: written.tokens, micros: written.micros, state: written.state, updatedAt: tx.clock.now() };
          yield tx.run(tx.db.insert(budgetReservations).values(row).onConflictDoUpdate({ target: budgetReservations.id, set: { state: sql`excluded.state`, updatedAt: sql`excluded.updated_at` } }));
        }
        return result;
      }),
    read: (key) => then(driver.execute(ROW, { key }), (row) => row ?? null),
    reservation: (id) => then(driver.execute(RESERVATION, { id }), reservationOf),
  };
}
