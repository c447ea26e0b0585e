import type { Clock } from "../ports/clock.js";
import { defineContract, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

const cases: ContractCases<Clock, undefined> = {
  "now is a finite number of epoch milliseconds": async ({ store, expect }) => {
    const now = store.now();
    expect(Number.isFinite(now)).toBe(true);
    expect(now).toBeGreaterThanOrEqual(0);
  },

  "now never decreases": async ({ store, expect }) => {
    let previous = store.now();
    for (let i = 0; i < 10_000; i++) {
      const current = store.now();
      if (current < previous) expect(`${current} after ${previous}`).toBe("non-decreasing");
      previous = current;
    }
    expect(store.now()).toBeGreaterThanOrEqual(previous);
  },
};

/**
 * The clock port contract: finite, non-negative epoch milliseconds that never decrease.
 *
 * @example
 * runClockContract({ describe, it, expect }, () => ({ store: createSystemClock() }));
 */
export function runClockContract(api: ContractTestApi, factory: ContractFactory<Clock>, options: ContractOptions = {}): void {
  defineContract(api, "Clock", factory, cases, options);
}
