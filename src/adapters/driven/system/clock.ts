import type { Clock } from "../../../ports/clock.js";

/**
 * The wall clock (`Date.now()`), made monotonic within the process: if the system time steps
 * back, `now()` repeats the last value instead of decreasing.
 *
 * @example
 * const clock = createSystemClock();
 * const startedAt = clock.now();
 */
export function createSystemClock(): Clock {
  let last = 0;
  return {
    now(): number {
      const current = Date.now();
      if (current > last) last = current;
      return last;
    },
  };
}
