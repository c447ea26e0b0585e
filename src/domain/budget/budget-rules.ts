/**
 * The budget ledger's rules, pure (BUD-1): windows of periodic budgets, row keys, amount checks
 * and the reservation decision every ledger adapter applies the same way.
 */
import { SteamharnessError } from "../errors.js";
import type { BudgetAmount, BudgetExceeded, BudgetKey, BudgetLimit, BudgetScope } from "../../ports/budget-ledger.js";

const SCOPES: readonly BudgetScope[] = ["run", "conversation", "project", "tenant"];

/** One budget row: spent, held and granted amounts of one budget in one window. */
export interface BudgetRow {
  key: string;
  spentTokens: number;
  spentMicros: number;
  reservedTokens: number;
  reservedMicros: number;
  grantedTokens: number;
  grantedMicros: number;
}

/** A reservation (or a grant, `state: "granted"`) and the budget rows it touched. */
export interface BudgetReservationRow {
  id: string;
  keys: string[];
  tokens: number;
  micros: number;
  state: "held" | "settled" | "released" | "granted";
}

/**
 * The window of a periodic budget at `at` (UTC): `2026-12-01` for a day, `2026-12` for a month;
 * null without a period.
 *
 * @example
 * budgetWindow("month", Date.UTC(2026, 11, 5)); // "2026-12"
 */
export function budgetWindow(period: BudgetKey["period"], at: number): string | null {
  if (period === undefined) return null;
  const day = new Date(at).toISOString().slice(0, 10);
  return period === "day" ? day : day.slice(0, 7);
}

/**
 * The row key of a budget in the window of `at`, checked: `tenant:acme`, `tenant:acme:month:2026-12`.
 *
 * @example
 * budgetRowKey({ scope: "run", id: "run-1" }, Date.now()); // "run:run-1"
 */
export function budgetRowKey(key: BudgetKey, at: number): string {
  if (!SCOPES.includes(key.scope)) throw new SteamharnessError("input_validation", `[steamharness] [budget] unknown scope ${String(key.scope)}`, { field: "scope" });
  if (typeof key.id !== "string" || key.id === "" || key.id.length > 500) throw new SteamharnessError("input_validation", "[steamharness] [budget] a budget id is 1 to 500 characters", { field: "id" });
  if (key.period !== undefined && key.period !== "day" && key.period !== "month") throw new SteamharnessError("input_validation", `[steamharness] [budget] unknown period ${String(key.period)}`, { field: "period" });
  if (!Number.isFinite(at)) throw new SteamharnessError("input_validation", "[steamharness] [budget] `at` is not a time", { field: "at" });
  const window = budgetWindow(key.period, at);
  return window === null ? `${key.scope}:${key.id}` : `${key.scope}:${key.id}:${key.period}:${window}`;
}

const whole = (value: unknown, field: string): number => {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw new SteamharnessError("input_validation", `[steamharness] [budget] ${field} is a whole number ≥ 0`, { field });
  return value;
};

/**
 * A checked amount (whole numbers ≥ 0).
 *
 * @example
 * checkBudgetAmount({ tokens: 10, costMicros: 0 });
 */
export function checkBudgetAmount(amount: BudgetAmount): BudgetAmount {
  if (typeof amount !== "object" || amount === null) throw new SteamharnessError("input_validation", "[steamharness] [budget] an amount is { tokens, costMicros }", { field: "amount" });
  return { tokens: whole(amount.tokens, "tokens"), costMicros: whole(amount.costMicros, "costMicros") };
}

/**
 * A checked id of a reservation or grant.
 *
 * @example
 * checkBudgetId("run-1:0:0", "reservationId");
 */
export function checkBudgetId(id: string, field: string): string {
  if (typeof id !== "string" || id === "" || id.length > 500) throw new SteamharnessError("input_validation", `[steamharness] [budget] ${field} is 1 to 500 characters`, { field });
  return id;
}

/**
 * A row with nothing recorded.
 *
 * @example
 * const row = rows.get(key) ?? emptyBudgetRow(key);
 */
export function emptyBudgetRow(key: string): BudgetRow {
  return { key, spentTokens: 0, spentMicros: 0, reservedTokens: 0, reservedMicros: 0, grantedTokens: 0, grantedMicros: 0 };
}

/**
 * The first budget of `limits` that holding `amount` would pass, or null when it fits all.
 *
 * @example
 * const exceeded = firstExceeded(limits, keys, rows, amount, at);
 */
export function firstExceeded(limits: readonly BudgetLimit[], keys: readonly string[], rows: ReadonlyMap<string, BudgetRow>, amount: BudgetAmount, at: number): BudgetExceeded | null {
  for (const [index, limit] of limits.entries()) {
    const row = rows.get(keys[index]!) ?? emptyBudgetRow(keys[index]!);
    const units = [
      ["tokens", limit.tokens, row.spentTokens, row.reservedTokens, row.grantedTokens, amount.tokens],
      ["cost", limit.costMicros, row.spentMicros, row.reservedMicros, row.grantedMicros, amount.costMicros],
    ] as const;
    for (const [unit, configured, spent, reserved, granted, requested] of units) {
      if (configured === undefined) continue;
      const cap = configured + granted;
      if (spent + reserved + requested > cap) {
        return { scope: limit.scope, id: limit.id, ...(limit.period ? { period: limit.period } : {}), window: budgetWindow(limit.period, at), unit, spent, reserved, limit: cap, requested };
      }
    }
  }
  return null;
}

/**
 * Checked limits (configured amounts whole numbers ≥ 0).
 *
 * @example
 * checkBudgetLimits([{ scope: "tenant", id: "acme", costMicros: 5_000_000 }]);
 */
export function checkBudgetLimits(limits: readonly BudgetLimit[]): readonly BudgetLimit[] {
  if (!Array.isArray(limits)) throw new SteamharnessError("input_validation", "[steamharness] [budget] limits is a list", { field: "limits" });
  for (const limit of limits) {
    if (limit.tokens !== undefined) whole(limit.tokens, "tokens");
    if (limit.costMicros !== undefined) whole(limit.costMicros, "costMicros");
  }
  return limits;
}
