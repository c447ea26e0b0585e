/**
 * The minimal test-framework surface the contract suites need, so a host can run them on jest,
 * vitest or node:test adapters alike.
 */
export interface ContractTestApi {
  describe: (name: string, fn: () => void) => void;
  it: (name: string, fn: () => Promise<void> | void, timeout?: number) => void;
  expect: (actual: unknown) => any;
}

/**
 * Checks a suite's `skip` option: every name must be one the suite knows; an unknown name throws,
 * so a typo never silently disables a case.
 *
 * @example
 * const skipped = checkSkips("KvStore", ["large-values"], options.skip);
 */
export function checkSkips(suite: string, known: readonly string[], skip: readonly string[] = []): Set<string> {
  const unknown = skip.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new Error(`[steamharness] ${suite} contract: unknown skip name(s) ${unknown.join(", ")}; known: ${known.join(", ")}`);
  }
  return new Set(skip);
}

/** A random id for test isolation. */
export function randomTestId(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}${Date.now().toString(36)}`;
}
