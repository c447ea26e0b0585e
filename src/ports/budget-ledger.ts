/**
 * The budget ledger (BUD-1): what was spent and what is held against token and money budgets,
 * shared by every host that opens the same store. A model call reserves its worst case before it
 * starts, settles the reported usage when it ends, and releases the hold when it fails, so hosts
 * racing on one budget never overspend it: a reservation that would pass the limit is refused.
 *
 * Money is counted in integer micro-dollars (`costMicros`, 1 USD = 1 000 000) so sums are exact.
 */

/** Who a budget belongs to. */
export type BudgetScope = "run" | "conversation" | "project" | "tenant";

/** A budget that starts again each UTC day or month; none = for ever. */
export type BudgetPeriod = "day" | "month";

/** Tokens and micro-dollars (both whole numbers ≥ 0). */
export interface BudgetAmount {
  tokens: number;
  costMicros: number;
}

/** Which budget: the owner and, for a periodic budget, its period (the window follows from the time). */
export interface BudgetKey {
  scope: BudgetScope;
  id: string;
  period?: BudgetPeriod;
}

/** A budget to check a reservation against: a key and its configured limits (absent = unlimited in that unit). */
export interface BudgetLimit extends BudgetKey {
  tokens?: number;
  costMicros?: number;
}

/** A budget as the ledger holds it in one window. */
export interface BudgetState extends BudgetKey {
  /** The window (`2026-12-01` for a day, `2026-12` for a month), or null without a period. */
  window: string | null;
  /** Settled spending. */
  spent: BudgetAmount;
  /** Held by reservations not yet settled or released. */
  reserved: BudgetAmount;
  /** Added to the configured limits by approved extensions (BUD-3). */
  granted: BudgetAmount;
}

/** Why a reservation was refused: the first budget it would have passed. */
export interface BudgetExceeded extends BudgetKey {
  window: string | null;
  unit: "tokens" | "cost";
  /** Settled spending in that unit. */
  spent: number;
  /** Held by other reservations in that unit. */
  reserved: number;
  /** Configured limit plus granted extensions in that unit. */
  limit: number;
  /** What this reservation asked for in that unit. */
  requested: number;
}

/** A reservation request: held against every budget in `limits` at once, or against none. */
export interface BudgetReservation {
  /** Stable for the call it guards (e.g. run, step, attempt), so a retried reserve holds once. */
  reservationId: string;
  limits: readonly BudgetLimit[];
  amount: BudgetAmount;
  /** Epoch ms; picks the window of periodic budgets. */
  at: number;
}

/** An earlier reservation to finish: settled on `actual` spending, or released when null. */
export interface BudgetFinish {
  reservationId: string;
  actual: BudgetAmount | null;
}

/** A reservation's answer. */
export type BudgetReserveOutcome = { ok: true } | { ok: false; exceeded: BudgetExceeded };

/** An approved extension of one budget (BUD-3); idempotent by `grantId`. */
export interface BudgetGrant extends BudgetKey {
  grantId: string;
  amount: BudgetAmount;
  at: number;
}

/**
 * The budget-ledger port.
 *
 * - Every operation is atomic across processes and hosts sharing the store: `reserve` checks
 *   and holds under the budgets' row locks (SQLite `BEGIN IMMEDIATE`, PostgreSQL `FOR UPDATE`),
 *   so the sum of spent and reserved never passes a limit through reservations.
 * - `reserve` is idempotent by `reservationId`: a second call with an id already known answers
 *   `{ ok: true }` and holds nothing more (also after settle or release).
 * - `settle` and `release` of an unknown or already finished reservation change nothing and
 *   resolve `false`. `settle` counts the actual amount even when it is more than was held.
 * - Invalid input (negative or fractional amounts, empty ids) rejects with `input_validation` and
 *   changes nothing; adapter faults reject with `storage_failure`.
 */
export interface BudgetLedger {
  /** Holds `amount` against every budget of `limits`, or refuses with the first budget it would pass. */
  reserve(reservation: BudgetReservation): Promise<BudgetReserveOutcome>;
  /** Replaces the hold of `reservationId` by `actual` spending; `false` when there was no open hold. */
  settle(reservationId: string, actual: BudgetAmount): Promise<boolean>;
  /**
   * Optional: finishes `finished` (as {@link BudgetLedger.settle} or {@link BudgetLedger.release}
   * would), then reserves `reservation` — in one atomic step where the store allows it (SQLite:
   * one transaction instead of two). The finish stands whatever the reserve answers (held,
   * known or refused); invalid input in either rejects with `input_validation` before anything
   * changes. A run settles its call this way with its next reservation (BUD-2); a ledger without
   * it is settled, then reserved.
   */
  finishAndReserve?(finished: BudgetFinish, reservation: BudgetReservation): Promise<BudgetReserveOutcome>;
  /** Drops the hold of `reservationId` (the call failed before it cost anything); `false` when none was open. */
  release(reservationId: string): Promise<boolean>;
  /** The budget's state in the window of `at` (zeros when nothing was recorded). */
  read(key: BudgetKey, at: number): Promise<BudgetState>;
  /** Raises a budget's limits by `amount` in the window of `at`; `false` when `grantId` was applied before. */
  extend(grant: BudgetGrant): Promise<boolean>;
}
