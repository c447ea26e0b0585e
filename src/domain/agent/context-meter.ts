import type { TokenCounts } from "../../ports/token-usage.js";

/** The context occupancy the ring shows (AG-7) and `getContextUsage()` returns. */
export interface AgentContextUsage {
  /** Tokens in the context now. */
  used: number;
  /** The model's context window. */
  total: number;
  unit: "tokens";
  /** Where `used` comes from: the last model usage, an external measurement, or only an estimate. */
  source: "usage" | "measured" | "estimate";
}

/**
 * Estimated tokens of a text: one per four UTF-16 units, rounded up. Only for occupancy between
 * two model usages; billing never uses it.
 *
 * @example
 * estimateTokens("hello world") // 3
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Context occupancy = the last valid model usage (or an external measurement) plus an estimate of
 * everything added since (AG-7). Independent from billing usage, which is per response.
 *
 * @example
 * const meter = createContextMeter(128000);
 * meter.add("some text"); meter.recordUsage(usage); meter.usage();
 */
export function createContextMeter(total: number) {
  let window = total;
  let baseline = 0;
  let pendingChars = 0;
  let source: AgentContextUsage["source"] = "estimate";
  return {
    /** Adds the estimate of new context text (prompt, deltas, tool arguments and results). */
    add(text: string): void {
      pendingChars += text.length;
    },
    /** A model response's usage becomes the new baseline; the response itself is counted in it. */
    recordUsage(usage: TokenCounts): void {
      const used = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
      if (used <= 0) return;
      baseline = used;
      pendingChars = 0;
      source = "usage";
    },
    /** An external measurement replaces the baseline (`updateContextUsage`). */
    measure(used: number, newTotal?: number): void {
      baseline = Math.max(0, Math.round(used));
      pendingChars = 0;
      source = "measured";
      if (newTotal !== undefined && newTotal > 0) window = newTotal;
    },
    /** Starts over from nothing (a new run estimates its whole context again). */
    reset(): void {
      baseline = 0;
      pendingChars = 0;
      source = "estimate";
    },
    /** Changes the window (another model). */
    setTotal(newTotal: number): void {
      if (newTotal > 0) window = newTotal;
    },
    usage(): AgentContextUsage {
      return { used: baseline + Math.ceil(pendingChars / 4), total: window, unit: "tokens", source };
    },
  };
}

/** The meter returned by {@link createContextMeter}. */
export type ContextMeter = ReturnType<typeof createContextMeter>;
