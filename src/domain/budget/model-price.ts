/**
 * Prices of model calls (BUD-2), pure: USD per million tokens, which is also micro-dollars per
 * token, so a call's cost in micro-dollars is a sum of token counts times prices, rounded up.
 * A price is checked before any call (TEN-5): finite, ≥ 0 and at most {@link MAX_MODEL_PRICE},
 * so every cost the ledger is asked to hold is a whole number it can add up exactly.
 */
import { Type } from "@sinclair/typebox";
import { SteamharnessError } from "../errors.js";
import type { TokenCounts } from "../../ports/token-usage.js";

/**
 * The highest price accepted, USD per million tokens (one dollar a token, far above any model's):
 * with it, a call's cost stays a safe integer of micro-dollars.
 */
export const MAX_MODEL_PRICE = 1_000_000;

/** A model's prices in USD per million tokens (pi-ai's `cost` shape). */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

const PRICE_KEYS = ["input", "output", "cacheRead", "cacheWrite"] as const;

const PriceNumber = Type.Number({ minimum: 0, maximum: MAX_MODEL_PRICE, description: "USD per million tokens" });
/** TypeBox schema of a model entry's `price` (TypeBox refuses NaN and infinities as numbers). */
export const ModelPriceSchema = Type.Object({ input: PriceNumber, output: PriceNumber, cacheRead: Type.Optional(PriceNumber), cacheWrite: Type.Optional(PriceNumber) }, { additionalProperties: false });

/**
 * A checked price: `input` and `output` required, `cacheRead` and `cacheWrite` optional, each a
 * finite number from 0 to {@link MAX_MODEL_PRICE}. Throws `input_validation` naming the field
 * (`<field>.input`) otherwise — a negative price would make calls pay the budget back.
 *
 * @example
 * checkModelPrice({ input: 3, output: 15 }, "budget.price");
 */
export function checkModelPrice(price: unknown, field: string, separator = "."): ModelPrice {
  if (typeof price !== "object" || price === null || Array.isArray(price)) throw new SteamharnessError("input_validation", `[steamharness] [budget] ${field} is { input, output, cacheRead?, cacheWrite? } in USD per million tokens`, { field });
  const record = price as Record<string, unknown>;
  for (const key of PRICE_KEYS) {
    const value = record[key];
    if (value === undefined && (key === "cacheRead" || key === "cacheWrite")) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_MODEL_PRICE) {
      throw new SteamharnessError("input_validation", `[steamharness] [budget] ${field}${separator}${key} is a price in USD per million tokens, a finite number from 0 to ${MAX_MODEL_PRICE} (got ${value === undefined ? "nothing" : String(value)})`, { field: `${field}${separator}${key}` });
    }
  }
  return { input: record.input as number, output: record.output as number, ...(record.cacheRead === undefined ? {} : { cacheRead: record.cacheRead as number }), ...(record.cacheWrite === undefined ? {} : { cacheWrite: record.cacheWrite as number }) };
}

/**
 * What `usage` cost in micro-dollars (rounded up), or 0 without a price.
 *
 * @example
 * usageCostMicros({ input: 1000, output: 200, cacheRead: 0, cacheWrite: 0, total: 1200 }, { input: 3, output: 15 }); // 6000
 */
export function usageCostMicros(usage: TokenCounts, price: ModelPrice | null | undefined): number {
  if (!price) return 0;
  const cost = usage.input * price.input + usage.output * price.output + usage.cacheRead * (price.cacheRead ?? price.input) + usage.cacheWrite * (price.cacheWrite ?? price.input);
  return Math.ceil(cost - 1e-9);
}

/**
 * The worst case of a call sending `inputTokens` and answering at most `maxOutputTokens`, as token
 * counts: every input token counted in the dearest input kind (a cache write may cost more than
 * plain input), so its {@link usageCostMicros} is {@link worstCaseCostMicros}. A call whose
 * reported usage is not trusted is counted as this (TEN-5).
 *
 * @example
 * worstCaseUsage(1000, 4096, { input: 3, output: 15, cacheWrite: 3.75 }); // { input: 0, output: 4096, cacheRead: 0, cacheWrite: 1000, total: 5096 }
 */
export function worstCaseUsage(inputTokens: number, maxOutputTokens: number, price: ModelPrice | null | undefined): TokenCounts {
  const read = price?.cacheRead ?? price?.input ?? 0;
  const write = price?.cacheWrite ?? price?.input ?? 0;
  const dearest = !price || (price.input >= read && price.input >= write) ? "input" : write >= read ? "cacheWrite" : "cacheRead";
  return { input: 0, output: maxOutputTokens, cacheRead: 0, cacheWrite: 0, [dearest]: inputTokens, total: inputTokens + maxOutputTokens };
}

/**
 * The worst-case cost of a call sending `inputTokens` and answering at most `maxOutputTokens`:
 * every input token at the dearest input price.
 *
 * @example
 * worstCaseCostMicros(1000, 4096, { input: 3, output: 15, cacheWrite: 3.75 });
 */
export function worstCaseCostMicros(inputTokens: number, maxOutputTokens: number, price: ModelPrice | null | undefined): number {
  return usageCostMicros(worstCaseUsage(inputTokens, maxOutputTokens, price), price);
}

/**
 * Whole micro-dollars of a USD amount.
 *
 * @example
 * usdToMicros(0.5); // 500000
 */
export function usdToMicros(usd: number): number {
  return Math.round(usd * 1_000_000);
}
