import { asc, eq, inArray, sql } from "drizzle-orm";
import type { BudgetLedger } from "../../../ports/budget-ledger.js";
import { createBudgetLedger, type BudgetLedgerRows, type BudgetReservationRow, type BudgetRow } from "../kernel/budget-ledger.js";
import { emptyBudgetRow } from "../../../domain/budget/budget-rules.js";
import { postgresCall, type PostgresStoreContext } from "./postgres-database.js";

/**
 * The budget rows on PostgreSQL (BUD-1): each step is one transaction that row-locks the
 * reservation and the budget rows it touches (`SELECT … FOR UPDATE`, budget rows in key order so
 * two steps never deadlock) before the kernel decides, so hosts racing on one budget serialise
 * on its row. Absent budget rows are first inserted as zeros (`ON CONFLICT DO NOTHING`), because
 * `FOR UPDATE` locks nothing that does not exist yet.
 *
 * @example
 * const rows = createPostgresBudgetRows(context);
 */
export function createPostgresBudgetRows({ db, tables, clock }: Pick<PostgresStoreContext, "db" | "tables" | "clock">): BudgetLedgerRows {
  const { budgetRows, budgetReservations } = tables;
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
          await tx.insert(budgetRows).values(keys.map(emptyBudgetRow)).onConflictDoNothing();
          for (const row of await tx.select().from(budgetRows).where(inArray(budgetRows.key, keys)).orderBy(asc(budgetRows.key)).for("update")) locked.set(row.key, row);
          // A first reserve of the same id that committed while this step waited for the rows is seen now.
          if (reservation === null) reservation = await readReservation();
        }
        const writes = decide(reservation, locked);
        for (const row of writes.budgets) {
          const { key, ...columns } = row;
          await tx.insert(budgetRows).values(row).onConflictDoUpdate({ target: budgetRows.key, set: columns });
        }
        if (writes.reservation) {
          const { id, keys: held, tokens, micros, state } = writes.reservation;
          const updatedAt = clock.now();
          await tx.insert(budgetReservations).values({ id, keys: JSON.stringify(held), tokens, micros, state, updatedAt }).onConflictDoUpdate({ target: budgetReservations.id, set: { state, updatedAt: sql`excluded.updated_at` } });
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
