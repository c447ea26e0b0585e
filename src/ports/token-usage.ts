/** Token counts of one model response, or of a total. */
export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** One model response's usage. `entryId` is stable for that response (derived from run and request). */
export interface TokenUsageEntry extends TokenCounts {
  entryId: string;
  runId: string;
  provider: string;
  model: string;
  at: number;
}

/**
 * The token-usage port behind `context.tokenUsage`. Recording is idempotent by `entryId`: the
 * same response recorded twice (a resumed run) counts once.
 */
export interface TokenUsageRecorder {
  /** Records the entry; resolves `false` when an entry with that id was already recorded. */
  record(entry: TokenUsageEntry): Promise<boolean>;
  /** The sum of every recorded entry (all zero when none). */
  total(): Promise<TokenCounts>;
  /** The recorded entry, or `null`. */
  get(entryId: string): Promise<TokenUsageEntry | null>;
}
