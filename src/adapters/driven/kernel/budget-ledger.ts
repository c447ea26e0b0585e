/**
 * The budget ledger written once (BUD-1, ARCH-3): the rules of reserve, settle, release and
 * extend over a row driver's one atomic step. The driver only locks, reads and writes rows; the
 * decision of each step is made here, inside the driver's transaction. One exception, for speed:
 * a driver whose round trips (PostgreSQL) or statements (SQLite) cost more than its work may run
 * a whole reserve or finish as one operation of its own (`reserve`, `finish` below) by the same
 * rule (PostgreSQL in a server-side function, SQLite in a trigger that decides a refusal again
 * with the kernel's firstExceeded); input checks and the refusal's answer stay here, and the
 * contract suite holds every driver to one meaning.
 */
import { budgetRowKey, budgetWindow, checkBudgetAmount, checkBudgetId, checkBudgetLimits, emptyBudgetRow, firstExceeded, type BudgetReservationRow, type BudgetRow } from "../../../domain/budget/budget-rules.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { BudgetAmount, BudgetLedger, BudgetLimit, BudgetReservation, BudgetReserveOutcome } from "../../../ports/budget-ledger.js";
import type { Awaitable, StoreCall } from "./store-call.js";

export type { BudgetReservationRow, BudgetRow };

/** What one step decides: its answer and the rows to write (unchanged rows may be left out). */
export interface BudgetStepWrites<T> {
  result: T;
  budgets: BudgetRow[];
  reservation: BudgetReservationRow | null;
}

/**
 * A step's decision, given the reservation row (null when unknown) and the locked budget rows of
 * the keys `keysOf` named (absent keys have no row yet).
 */
export type BudgetDecision<T> = (reservation: BudgetReservationRow | null, budgets: ReadonlyMap<string, BudgetRow>) => BudgetStepWrites<T>;

/** Row access of the ledger. */
export interface BudgetLedgerRows {
  /**
   * One atomic step no other ledger on the store interleaves with: reads the reservation row of
   * `reservationId`, locks and reads the budget rows of `keysOf(reservation)` (in sorted order,
   * so two steps never deadlock), calls `decide` and writes what it returns — all or nothing.
   */
  step<T>(reservationId: string, keysOf: (reservation: BudgetReservationRow | null) => string[], decide: BudgetDecision<T>): Awaitable<T>;
  /** The budget row of `key`, or null. */
  read(key: string): Awaitable<BudgetRow | null>;
  /**
   * Optional: a whole reserve as one atomic operation of the store (PostgreSQL: one call of a
   * server-side function, one round trip), with the same rule as the kernel's step — a known id
   * holds nothing more ("known", or "held" from a driver that cannot tell them apart: both
   * answer ok); a hold that would pass any of `limits` (row `keys[i]` against
   * `limits[i]`) is refused whole and answers the budget rows of `unique` as they stand
   * ("refused"); else `amount` is held on every row of `unique` ("held"). Absent: {@link step}.
   */
  reserve?(request: BudgetRowsReserve): Awaitable<BudgetRowsReserveAnswer>;
  /**
   * Optional: settle (`actual`) or release (null) a held reservation as one atomic operation, as
   * the kernel's step would; false when it was not held. Absent: {@link step}.
   */
  finish?(reservationId: string, actual: BudgetAmount | null): Awaitable<boolean>;
  /**
   * Optional, with {@link reserve} and {@link finish}: both in one atomic operation (SQLite: one
   * transaction, one commit) — the finish of `finished` first (standing whatever the reserve
   * answers), then the reserve of `request`, answered as {@link reserve} answers. Absent: the
   * finish, then the reserve.
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

const unchanged = <T>(result: T): BudgetStepWrites<T> => ({ result, budgets: [], reservation: null });

/** Adds `sign × (tokens, micros)` to the reserved (or spent) columns of every row of `keys`. */
function adjust(budgets: ReadonlyMap<string, BudgetRow>, keys: readonly string[], column: "reserved" | "spent" | "granted", tokens: number, micros: number): BudgetRow[] {
  return keys.map((key) => {
    const row = { ...(budgets.get(key) ?? emptyBudgetRow(key)) };
    if (column === "reserved") (row.reservedTokens = Math.max(0, row.reservedTokens + tokens)), (row.reservedMicros = Math.max(0, row.reservedMicros + micros));
    else if (column === "spent") (row.spentTokens += tokens), (row.spentMicros += micros);
    else (row.grantedTokens += tokens), (row.grantedMicros += micros);
    return row;
  });
}

/**
 * The ledger over `rows`, each step run through `call`.
 *
 * @example
 * const ledger = createBudgetLedger(sqlBudgetRows(driver), postgresCall(state));
 */
export function createBudgetLedger(rows: BudgetLedgerRows, call: StoreCall): BudgetLedger {
  const finish = (reservationId: string, what: string, settle: { tokens: number; costMicros: number } | null) => {
    const id = checkBudgetId(reservationId, "reservationId");
    const actual = settle === null ? null : checkBudgetAmount(settle);
    if (rows.finish) return call(what, () => rows.finish!(id, actual));
    return call(what, () =>
      rows.step(id, (reservation) => (reservation?.state === "held" ? reservation.keys : []), (reservation, budgets) => {
        if (reservation?.state !== "held") return unchanged(false);
        const released = adjust(budgets, reservation.keys, "reserved", -reservation.tokens, -reservation.micros);
        const written = actual === null ? released : adjust(new Map(released.map((row) => [row.key, row])), reservation.keys, "spent", actual.tokens, actual.costMicros);
        return { result: true, budgets: written, reservation: { ...reservation, state: actual === null ? "released" : "settled" } };
      }),
    );
  };
  /** A reservation request checked, with its row keys. */
  const checkedReserve = (request: BudgetReservation): BudgetRowsReserve => {
    const id = checkBudgetId(request.reservationId, "reservationId");
    const amount = checkBudgetAmount(request.amount);
    const limits = checkBudgetLimits(request.limits);
    const keys = limits.map((limit) => budgetRowKey(limit, request.at));
    return { id, limits, keys, unique: [...new Set(keys)], amount, at: request.at };
  };
  /** The answer of a driver's own reserve operation. */
  const outcomeOf = (request: BudgetRowsReserve, answer: BudgetRowsReserveAnswer): BudgetReserveOutcome => {
    if (answer.outcome !== "refused") return { ok: true };
    const exceeded = firstExceeded(request.limits, request.keys, answer.rows, request.amount, request.at);
    // The store refused by the same rule: a refusal the rule does not explain is a store fault.
    if (exceeded === null) throw new SteamharnessError("storage_failure", "[steamharness] [budget] the store refused a reservation that fits its budgets");
    return { ok: false, exceeded };
  };
  const reserve = async (request: BudgetRowsReserve): Promise<BudgetReserveOutcome> => {
    if (rows.reserve) return outcomeOf(request, await call("budget reserve", () => rows.reserve!(request)));
    const { id, limits, keys, unique, amount, at } = request;
    return call("budget reserve", () =>
      rows.step<BudgetReserveOutcome>(id, () => [...unique], (reservation, budgets) => {
        if (reservation !== null) return unchanged({ ok: true });
        const exceeded = firstExceeded(limits, keys, budgets, amount, at);
        if (exceeded) return unchanged({ ok: false, exceeded });
        return { result: { ok: true }, budgets: adjust(budgets, unique, "reserved", amount.tokens, amount.costMicros), reservation: { id, keys: [...unique], tokens: amount.tokens, micros: amount.costMicros, state: "held" } };
      }),
    );
  };
  return {
    reserve: async (request) => reserve(checkedReserve(request)),
    async finishAndReserve(finished, request) {
      // Both checked before either runs: bad input changes nothing.
      const id = checkBudgetId(finished.reservationId, "reservationId");
      const actual = finished.actual === null ? null : checkBudgetAmount(finished.actual);
      const checked = checkedReserve(request);
      if (rows.finishAndReserve) return outcomeOf(checked, await call("budget reserve", () => rows.finishAndReserve!({ id, actual }, checked)));
      await finish(id, actual === null ? "budget release" : "budget settle", actual);
      return reserve(checked);
    },
    settle: (reservationId, actual) => finish(reservationId, "budget settle", actual),
    release: (reservationId) => finish(reservationId, "budget release", null),
    async read(key, at) {
      const rowKey = budgetRowKey(key, at);
      const row = (await call("budget read", () => rows.read(rowKey))) ?? emptyBudgetRow(rowKey);
      return {
        scope: key.scope, id: key.id, ...(key.period ? { period: key.period } : {}), window: budgetWindow(key.period, at),
        spent: { tokens: row.spentTokens, costMicros: row.spentMicros },
        reserved: { tokens: row.reservedTokens, costMicros: row.reservedMicros },
        granted: { tokens: row.grantedTokens, costMicros: row.grantedMicros },
      };
    },
    async extend(grant) {
      const id = `grant:${checkBudgetId(grant.grantId, "grantId")}`;
      const amount = checkBudgetAmount(grant.amount);
      const key = budgetRowKey(grant, grant.at);
      return call("budget extend", () =>
        rows.step(id, () => [key], (reservation, budgets) => {
          if (reservation !== null) return unchanged(false);
          return { result: true, budgets: adjust(budgets, [key], "granted", amount.tokens, amount.costMicros), reservation: { id, keys: [key], tokens: amount.tokens, micros: amount.costMicros, state: "granted" } };
        }),
      );
    },
  };
}
