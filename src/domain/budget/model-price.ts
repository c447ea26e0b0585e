/**
 * Prices of model calls (BUD-2), pure: USD per million tokens, which is also micro-dollars per
 * token, so a call's cost in micro-dollars is a sum of token counts times prices, rounded up.
 */
import type { TokenCounts } from "../../ports/token-usage.js";

/** A model's prices in USD per million tokens (pi-ai's `cost` shape). */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
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
 * The worst case of a call sending `inputTokens` and answering at most `maxOutputTokens`: every
 * input token at the dearest input price (a cache write may cost more than plain input).
 *
 * @example
 * worstCaseCostMicros(1000, 4096, { input: 3, output: 15, cacheWrite: 3.75 });
 */
export function worstCaseCostMicros(inputTokens: number, maxOutputTokens: number, price: ModelPrice | null | undefined): number {
  if (!price) return 0;
  const input = Math.max(price.input, price.cacheWrite ?? 0, price.cacheRead ?? 0);
  return Math.ceil(inputTokens * input + maxOutputTokens * price.output - 1e-9);
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
