import type { ModelResponse } from "../../ports/model-provider.js";

/** Default number of automatic retries of one model request (OUT-3: "Retry 1 / 10"). */
export const DEFAULT_MAX_RETRIES = 10;

/**
 * Default number of continuations of one answer (OUT-7): an answer cut at the output token limit
 * (`length`) or a tool call cut or lost (`lost-call`) is continued at most this many times; then
 * the answer stands as it is.
 */
export const DEFAULT_MAX_CONTINUATIONS = 4;

/**
 * The label of a retry row. `attempt` counts from 1 and restarts after every fully successful
 * model request, so a later failure of the same answer shows "Retry 1 / 10" again (OUT-3).
 *
 * @example
 * retryLabel(1, 10) // "Retry 1 / 10"
 */
export function retryLabel(attempt: number, max: number): string {
  return `Retry ${attempt} / ${max}`;
}

/**
 * Whether a finished response should be retried, given the retries already used for this request.
 * Only `error` responses flagged retryable are; aborts never are.
 *
 * @example
 * shouldRetry(response, 0, 10)
 */
export function shouldRetry(response: ModelResponse, retriesUsed: number, max: number): boolean {
  return response.stopReason === "error" && response.retry?.retryable === true && retriesUsed < max;
}

/**
 * The wait before retry `attempt` (1-based): exponential from `baseMs`, capped at 30 s.
 *
 * @example
 * retryDelay(3, 500) // 2000
 */
export function retryDelay(attempt: number, baseMs: number): number {
  return Math.min(30_000, baseMs * 2 ** Math.max(0, attempt - 1));
}
