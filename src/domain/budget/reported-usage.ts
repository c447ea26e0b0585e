/**
 * What a model call counts (BUD-2, TEN-5): the usage a provider reports is never trusted as is.
 * The ledger settles a call on whole token counts, so a report it cannot settle — or one that
 * would make an answered call free — counts as the call's reserved worst case instead:
 *
 * - every kind (`input`, `output`, `cacheRead`, `cacheWrite`) must be a whole number from 0 to
 *   {@link MAX_CALL_TOKENS}; absent, negative, fractional, NaN, infinite or absurd counts are not
 *   trusted;
 * - no call is free: an answered call reporting 0 tokens in all is not trusted either;
 * - a failed request (the provider answered with an error) reporting 0 tokens is released: the
 *   provider served nothing (a malformed report of a failed request still counts the worst case).
 *
 * Pure: the caller logs the warning ({@link SettledUsage.distrusted}) naming the provider.
 */
import type { TokenCounts } from "../../ports/token-usage.js";

/** The most tokens of one kind a single call may report: 100 million (beyond any context window). */
export const MAX_CALL_TOKENS = 100_000_000;

const KINDS = ["input", "output", "cacheRead", "cacheWrite"] as const;

/** What a call counts: the usage to commit and settle, and why the report was not trusted. */
export interface SettledUsage {
  /** The counts to commit and settle; null when the call is released (a failed request that used nothing). */
  usage: TokenCounts | null;
  /** What was wrong with the report (`input -5`, `no usage`, `0 tokens`), or null when it was trusted. */
  distrusted: string | null;
}

const trusted = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= MAX_CALL_TOKENS;

const shown = (value: unknown): string => (typeof value === "number" ? String(value) : value === undefined ? "missing" : JSON.stringify(value) ?? typeof value);

/**
 * The usage a call counts, from what the provider `reported`: the report when it is trustworthy,
 * else `worstCase` (what was reserved for the call); null for a `failed` request that used nothing.
 *
 * @example
 * settledUsage({ input: -5, output: 10 }, worstCaseUsage(1250, 4096, price), false);
 * // { usage: <the worst case>, distrusted: "input -5" }
 */
export function settledUsage(reported: unknown, worstCase: TokenCounts, failed: boolean): SettledUsage {
  if (typeof reported !== "object" || reported === null) return { usage: worstCase, distrusted: "no usage" };
  const record = reported as Record<string, unknown>;
  const wrong = KINDS.filter((kind) => !trusted(record[kind])).map((kind) => `${kind} ${shown(record[kind])}`);
  if (wrong.length > 0) return { usage: worstCase, distrusted: wrong.join(", ") };
  const counts = { input: record.input as number, output: record.output as number, cacheRead: record.cacheRead as number, cacheWrite: record.cacheWrite as number };
  const sum = counts.input + counts.output + counts.cacheRead + counts.cacheWrite;
  if (sum === 0) return failed ? { usage: null, distrusted: null } : { usage: worstCase, distrusted: "0 tokens for an answered call" };
  // The total is informational (the ledger settles the kinds); a provider's own total stands when it is sane.
  const total = trusted(record.total) && record.total >= sum ? record.total : sum;
  return { usage: { ...counts, total }, distrusted: null };
}
