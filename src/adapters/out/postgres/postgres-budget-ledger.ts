import { eq, sql } from "drizzle-orm";
import type { BudgetLedger } from "../../../ports/budget-ledger.js";
import { createBudgetLedger, type BudgetLedgerRows, type BudgetReservationRow, type BudgetRow } from "../kernel/budget-ledger.js";
import { emptyBudgetRow } from "../../../domain/budget/budget-rules.js";
import { postgresCall, type PostgresStoreContext } from "./postgres-database.js";

/**
 * The budget rows on PostgreSQL (BUD-1): each step is one transaction that row-locks the
 * reservation (`SELECT … FOR UPDATE`) and the budget rows it touches (one `INSERT … ON CONFLICT DO
 * UPDATE … RETURNING` in key order, which also creates absent rows, so two steps never deadlock and
 * a first reservation locks a row too) before the kernel decides: hosts racing on one budget
 * serialise on its row.
 *
 * @example
 * const rows = createPostgresBudgetRows(context);
 */
export function createPostgresBudgetRows({ db, tables, clock }: Pick<PostgresStoreContext, "db" | "tables" | "clock">): BudgetLedgerRows {
  const { budgetRows, budgetReservations } = tables;
  const columns = { spentTokens: sql`excluded.spent_tokens`, spentMicros: sql`excluded.spent_micros`, reservedTokens: sql`excluded.reserved_tokens`, reservedMicros: sql`excluded.reserved_micros`, grantedTokens: sql`excluded.granted_tokens`, grantedMicros: sql`excluded.granted_micros` };
  return {
    step: (reservationId, keysOf, decide) =>
      db.transaction(async (tx) => {
        const readReservation = async (): Promise<BudgetReservationRow | null> => {
          const [found] = await tx.select().from(budgetReservations).where(eq(budgetReservations.id, reservationId)).for("update");
          return found ? { id: found.id, keys: JSON.parse(found.keys) as string[], tokens: found.tokens, micros: found.micros, state: found.state as BudgetReservationRow["state"] } : null;
        };
        let reservation = await readReservation();
        const keys = [...new Set(keysOf(reservation))].sort();
        const locked = new Map<string, BudgetRow>();
        if (keys.length > 0) {
          // One statement locks and reads every row, creating absent ones as zeros: the no-op
          // update of a conflicting row takes its lock (rows in key order: no deadlock) and
          // RETURNING gives its current values.
          const rows = await tx.insert(budgetRows).values(keys.map(emptyBudgetRow)).onConflictDoUpdate({ target: budgetRows.key, set: { key: sql`excluded.key` } }).returning();
          for (const row of rows) locked.set(row.key, row);
          // A first reserve of the same id that committed while this step waited for the rows is seen now.
          if (reservation === null) reservation = await readReservation();
        }
        const writes = decide(reservation, locked);
        if (writes.budgets.length > 0) await tx.insert(budgetRows).values(writes.budgets).onConflictDoUpdate({ target: budgetRows.key, set: columns });
        if (writes.reservation) {
          const { id, keys: held, tokens, micros, state } = writes.reservation;
          await tx.insert(budgetReservations).values({ id, keys: JSON.stringify(held), tokens, micros, state, updatedAt: clock.now() }).onConflictDoUpdate({ target: budgetReservations.id, set: { state: sql`excluded.state`, updatedAt: sql`excluded.updated_at` } });
        }
        return writes.result;
      }),
    read: async (key) => (await db.select().from(budgetRows).where(eq(budgetRows.key, key)).limit(1))[0] ?? null,
  };
}

/**
 * The budget ledger of the PostgreSQL storage (`storage.budgets`): rows in the storage's schema,
 * shared by every host on the database.
 *
 * @example
 * const ledger = createPostgresBudgetLedger(context);
 */
export function createPostgresBudgetLedger(context: PostgresStoreContext): BudgetLedger {
  return createBudgetLedger(createPostgresBudgetRows(context), postgresCall(context.state));
}
