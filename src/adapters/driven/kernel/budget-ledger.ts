/**
 * The budget ledger written once on the SQL row driver (BUD-1, ARCH-3, ARCH-8): input checks, row
 * keys, the refusal's answer, the reads and the grant (an extend: one transaction that records its
 * id — an id known already, committed or not, makes the insert do nothing and the grant is refused
 * whole — then adds to its budget row in place). A reserve and a finish — the two steps of every
 * model call — are one operation of the dialect each ({@link BudgetLedgerRows}; PostgreSQL: a
 * server-side function, one round trip; SQLite: a statement whose triggers do the work), by the
 * rule of firstExceeded (test/budgets/budget-refusal-rule.test.ts holds every dialect to it); the
 * contract suite holds every store to one meaning.
 */
import { budgetRowKey, budgetWindow, checkBudgetAmount, checkBudgetId, checkBudgetLimits, emptyBudgetRow, firstExceeded, type BudgetReservationRow, type BudgetRow } from "../../../domain/budget/budget-rules.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { BudgetAmount, BudgetLedger, BudgetLimit, BudgetReservation, BudgetReserveOutcome } from "../../../ports/budget-ledger.js";
import { then, type SqlDriver, type SqlStatement } from "./sql-driver.js";
import type { Awaitable, StoreCall } from "./store-call.js";

export type { BudgetRow };

/** A dialect's own reserve and finish: each one atomic operation, none interleaving with another ledger's on the store. */
export interface BudgetLedgerRows {
  /**
   * A whole reserve: a known id holds nothing more ("known", or "held" from a store that cannot
   * tell them apart: both answer ok); a hold that would pass any of `limits` (row `keys[i]`
   * against `limits[i]`) is refused whole and answers the budget rows of `unique` as they stand
   * ("refused"); else `amount` is held on every row of `unique` ("held").
   */
  reserve(request: BudgetRowsReserve): Awaitable<BudgetRowsReserveAnswer>;
  /** Settles (`actual`) or releases (null) a held reservation; false when it was not held. */
  finish(reservationId: string, actual: BudgetAmount | null): Awaitable<boolean>;
  /**
   * Optional: the finish of `finished` (standing whatever the reserve answers), then the reserve
   * of `request`, as one operation (SQLite: one transaction, one commit). Absent: the two in turn.
   */
  finishAndReserve?(finished: { id: string; actual: BudgetAmount | null }, request: BudgetRowsReserve): Awaitable<BudgetRowsReserveAnswer>;
}

/** What {@link BudgetLedgerRows.reserve} answers. */
export type BudgetRowsReserveAnswer = { outcome: "known" | "held" } | { outcome: "refused"; rows: ReadonlyMap<string, BudgetRow> };

/** What {@link BudgetLedgerRows.reserve} is given: checked input, row keys per limit and unique. */
export interface BudgetRowsReserve {
  id: string;
  limits: readonly BudgetLimit[];
  keys: readonly string[];
  unique: readonly string[];
  amount: BudgetAmount;
  at: number;
}

const ROW: SqlStatement<{ key: string }> = { mode: "get", build: (on, param) => on.db.select().from(on.tables.budgetRows).where(on.ops.eq(on.tables.budgetRows.key, param("key"))) };
const RESERVATION: SqlStatement<{ id: string }> = {
  mode: "get",
  build: ({ db, tables: { budgetReservations: r }, ops }, param) => db.select({ id: r.id, keys: r.keys, tokens: r.tokens, micros: r.micros, state: r.state }).from(r).where(ops.eq(r.id, param("id"))),
};

/**
 * The reads of `driver`'s budget tables (`budgetRows`, `budgetReservations`) a dialect's own
 * reserve decides a refusal again with (synchronous on SQLite).
 *
 * @example
 * const reads = budgetReads(driver); const known = reads.reservation("r1") !== null;
 */
export function budgetReads(driver: SqlDriver) {
  return {
    row: (key: string): Awaitable<BudgetRow | null> => then(driver.execute(ROW, { key }), (row) => row ?? null),
    reservation: (id: string): Awaitable<BudgetReservationRow | null> => then(driver.execute(RESERVATION, { id }), (row) => (row ? { ...row, keys: JSON.parse(row.keys) as string[] } : null)),
  };
}

/**
 * The ledger on `driver` with the dialect's reserve and finish (`rows`), each step run through `call`.
 *
 * @example
 * const ledger = createBudgetLedger(driver, createPostgresBudgetCalls(driver), postgresCall(state));
 */
export function createBudgetLedger(driver: SqlDriver, rows: BudgetLedgerRows, call: StoreCall): BudgetLedger {
  const { budgetRows, budgetReservations: reservations } = driver.tables;
  const reads = budgetReads(driver);
  const checkedFinish = (reservationId: string, actual: BudgetAmount | null) => ({ id: checkBudgetId(reservationId, "reservationId"), actual: actual === null ? null : checkBudgetAmount(actual) });
  const finish = (what: string, reservationId: string, settle: BudgetAmount | null) => {
    const { id, actual } = checkedFinish(reservationId, settle);
    return call(what, () => rows.finish(id, actual));
  };
  /** A reservation request checked, with its row keys. */
  const checkedReserve = (request: BudgetReservation): BudgetRowsReserve => {
    const id = checkBudgetId(request.reservationId, "reservationId");
    const amount = checkBudgetAmount(request.amount);
    const limits = checkBudgetLimits(request.limits);
    const keys = limits.map((limit) => budgetRowKey(limit, request.at));
    return { id, limits, keys, unique: [...new Set(keys)], amount, at: request.at };
  };
  /** The answer of the store's reserve. */
  const outcomeOf = (request: BudgetRowsReserve, answer: BudgetRowsReserveAnswer): BudgetReserveOutcome => {
    if (answer.outcome !== "refused") return { ok: true };
    const exceeded = firstExceeded(request.limits, request.keys, answer.rows, request.amount, request.at);
    // The store refused by the same rule: a refusal the rule does not explain is a store fault.
    if (exceeded === null) throw new SteamharnessError("storage_failure", "[steamharness] [budget] the store refused a reservation that fits its budgets");
    return { ok: false, exceeded };
  };
  const reserve = async (request: BudgetRowsReserve) => outcomeOf(request, await call("budget reserve", () => rows.reserve(request)));
  return {
    reserve: async (request) => reserve(checkedReserve(request)),
    async finishAndReserve(finishedInput, request) {
      // Both checked before either runs: bad input changes nothing.
      const finished = checkedFinish(finishedInput.reservationId, finishedInput.actual);
      const checked = checkedReserve(request);
      if (rows.finishAndReserve) return outcomeOf(checked, await call("budget reserve", () => rows.finishAndReserve!(finished, checked)));
      await call(finished.actual === null ? "budget release" : "budget settle", () => rows.finish(finished.id, finished.actual));
      return reserve(checked);
    },
    settle: (reservationId, actual) => finish("budget settle", reservationId, actual),
    release: (reservationId) => finish("budget release", reservationId, null),
    async read(key, at) {
      const rowKey = budgetRowKey(key, at);
      const row = (await call("budget read", () => reads.row(rowKey))) ?? emptyBudgetRow(rowKey);
      return {
        scope: key.scope, id: key.id, ...(key.period ? { period: key.period } : {}), window: budgetWindow(key.period, at),
        spent: { tokens: row.spentTokens, costMicros: row.spentMicros },
        reserved: { tokens: row.reservedTokens, costMicros: row.reservedMicros },
        granted: { tokens: row.grantedTokens, costMicros: row.grantedMicros },
      };
    },
    async extend(grant) {
      const id = `grant:${checkBudgetId(grant.grantId, "grantId")}`;
      const { tokens, costMicros: micros } = checkBudgetAmount(grant.amount);
      const key = budgetRowKey(grant, grant.at);
      return call("budget extend", () =>
        driver.transaction(function* (tx) {
          const granted = { id, keys: JSON.stringify([key]), tokens, micros, state: "granted", updatedAt: tx.clock.now() };
          if ((yield tx.all(tx.db.insert(reservations).values(granted).onConflictDoNothing().returning({ id: reservations.id }))).length === 0) return false;
          const row = { ...emptyBudgetRow(key), grantedTokens: tokens, grantedMicros: micros };
          const { sql } = tx.ops;
          yield tx.run(tx.db.insert(budgetRows).values(row).onConflictDoUpdate({ target: budgetRows.key, set: { grantedTokens: sql`${budgetRows.grantedTokens} + excluded.granted_tokens`, grantedMicros: sql`${budgetRows.grantedMicros} + excluded.granted_micros` } }));
          return true;
        }),
      );
    },
  };
}
