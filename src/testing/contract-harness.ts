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
