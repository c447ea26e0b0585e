import type { BudgetLedger } from "../../../ports/budget-ledger.js";
import { createBudgetLedger, type BudgetLedgerRows, type BudgetReservationRow, type BudgetRow } from "../kernel/budget-ledger.js";
import { directCall } from "../kernel/store-call.js";

/**
 * Budget rows in two maps; a step is synchronous, so nothing interleaves with it in one process.
 *
 * @example
 * const ledger = createBudgetLedger(memoryBudgetRows(), directCall);
 */
export function memoryBudgetRows(): BudgetLedgerRows {
  const budgets = new Map<string, BudgetRow>();
  const reservations = new Map<string, BudgetReservationRow>();
  return {
    step(reservationId, keysOf, decide) {
      const reservation = reservations.get(reservationId) ?? null;
      const locked = new Map<string, BudgetRow>();
      for (const key of keysOf(reservation)) {
        const row = budgets.get(key);
        if (row) locked.set(key, { ...row });
      }
      const writes = decide(reservation === null ? null : { ...reservation, keys: [...reservation.keys] }, locked);
      for (const row of writes.budgets) budgets.set(row.key, { ...row });
      if (writes.reservation) reservations.set(writes.reservation.id, { ...writes.reservation });
      return writes.result;
    },
    read: (key) => {
      const row = budgets.get(key);
      return row ? { ...row } : null;
    },
  };
}

/**
 * The in-memory budget ledger (BUD-1): the reference adapter, for tests and single-process hosts.
 *
 * @example
 * const ledger = createMemoryBudgetLedger();
 * await ledger.reserve({ reservationId: "r1", limits: [{ scope: "run", id: "run-1", tokens: 1000 }], amount: { tokens: 400, costMicros: 0 }, at: Date.now() });
 */
export function createMemoryBudgetLedger(): BudgetLedger {
  return createBudgetLedger(memoryBudgetRows(), directCall);
}
