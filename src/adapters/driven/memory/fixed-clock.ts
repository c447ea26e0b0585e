import { SteamharnessError } from "../../../domain/errors.js";
import type { Clock } from "../../../ports/clock.js";

/** A clock for tests: time stands still until the test moves it forward. */
export interface FixedClock extends Clock {
  /** Moves time forward by `ms` (≥ 0). */
  advance(ms: number): void;
  /** Sets the time; refuses to go back, because `Clock.now()` never decreases. */
  set(epochMs: number): void;
}

/**
 * A clock that returns `start` until advanced.
 *
 * @example
 * const clock = createFixedClock(Date.UTC(2026, 0, 1));
 * clock.advance(1000);
 */
export function createFixedClock(start = 0): FixedClock {
  let current = start;
  const check = (next: number): number => {
    if (!Number.isFinite(next) || next < current) {
      throw new SteamharnessError("input_validation", "[steamharness] a clock never goes back", { field: "ms" });
    }
    return next;
  };
  return {
    now: () => current,
    advance(ms: number): void {
      current = check(current + ms);
    },
    set(epochMs: number): void {
      current = check(epochMs);
    },
  };
}
