/**
 * Shared machinery of the store contract suites: named cases with named skips, a fresh subject
 * per case disposed afterwards, error-code assertions and random ids.
 */
import { randomUUID } from "node:crypto";
import { isSteamharnessError } from "../domain/errors.js";
import { checkSkips } from "./contract-harness.js";

/** The `expect` of jest or vitest; cases use only matchers both share. */
export interface ContractExpect {
  // The matcher objects of jest and vitest differ in type, not in the matchers used here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (actual: unknown): any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  objectContaining(expected: Record<string, unknown>): any;
}

/** The slice of jest / vitest the store suites need: pass `{ describe, it, expect }`. */
export interface ContractTestApi {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => Promise<void>, timeout?: number): void;
  expect: ContractExpect;
}

/** A fresh store for one case, its teardown and (optionally) raw reads that bypass it. */
export interface ContractSubject<S, I = undefined> {
  store: S;
  dispose?: () => Promise<void> | void;
  /** Raw reads of the backing storage, so writes are checked without trusting the adapter. */
  inspect?: I;
}

/** Makes one fresh subject per case. */
export type ContractFactory<S, I = undefined> = () => Promise<ContractSubject<S, I>> | ContractSubject<S, I>;

/** Options every store contract accepts. */
export interface ContractOptions<Skip extends string = string> {
  /** Case names not to run; justify each in a comment. An unknown name throws. */
  skip?: readonly Skip[];
}

/** What a case receives. */
export interface ContractCaseContext<S, I> {
  store: S;
  inspect: I | undefined;
  expect: ContractExpect;
}

/** Contract cases by name; the names are the skip names. */
export type ContractCases<S, I> = Record<string, (context: ContractCaseContext<S, I>) => Promise<void>>;

/**
 * Registers `cases` under `describe(suite)`, each on a fresh subject from `factory`.
 *
 * @example
 * defineContract(api, "KvStore", factory, { "round-trip": async ({ store, expect }) => {} }, options);
 */
export function defineContract<S, I>(
  api: ContractTestApi,
  suite: string,
  factory: ContractFactory<S, I>,
  cases: ContractCases<S, I>,
  options: ContractOptions = {},
): void {
  const skipped = checkSkips(suite, Object.keys(cases), options.skip);
  api.describe(`${suite} contract`, () => {
    for (const [name, run] of Object.entries(cases)) {
      if (skipped.has(name)) continue;
      api.it(name, async () => {
        const subject = await factory();
        try {
          await run({ store: subject.store, inspect: subject.inspect, expect: api.expect });
        } finally {
          await subject.dispose?.();
        }
      });
    }
  });
}

/**
 * The `code` of the steamharness error `action` rejects with; fails when it resolves or throws
 * something else, so a case can `expect(await errorCode(...)).toBe("input_validation")`.
 *
 * @example
 * expect(await errorCode(() => store.get(ns, ""))).toBe("input_validation");
 */
export async function errorCode(action: () => Promise<unknown>): Promise<string> {
  let result: unknown;
  try {
    result = await action();
  } catch (error) {
    if (isSteamharnessError(error)) return error.code;
    return `not a steamharness error: ${String(error)}`;
  }
  return `resolved instead of failing: ${JSON.stringify(result)?.slice(0, 200)}`;
}

/**
 * A random id for isolation between cases (and between runs against a shared backend).
 *
 * @example
 * const projectId = uniqueId("project");
 */
export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * Walks every page of a listing and returns all items in order.
 *
 * @example
 * const all = await collectAll((cursor) => store.list(ns, { cursor, limit: 7 }));
 */
export async function collectAll<T>(
  list: (cursor: string | null) => Promise<{ items: T[]; nextCursor: string | null }>,
  maxPages = 10_000,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const result: { items: T[]; nextCursor: string | null } = await list(cursor);
    all.push(...result.items);
    if (result.nextCursor === null) return all;
    cursor = result.nextCursor;
  }
  throw new Error(`[steamharness] listing did not end within ${maxPages} pages`);
}

/**
 * Flips one character of a cursor in the middle, producing a tampered cursor.
 *
 * @example
 * const bad = tamper(page.nextCursor!);
 */
export function tamper(cursor: string): string {
  const at = Math.floor(cursor.length / 3);
  const replacement = cursor[at] === "A" ? "B" : "A";
  return `${cursor.slice(0, at)}${replacement}${cursor.slice(at + 1)}`;
}

/**
 * Values that are not JSON and must be refused, by label.
 *
 * @example
 * for (const [label, value] of nonJsonValues()) await expectRefused(label, value);
 */
export function nonJsonValues(): Array<[string, unknown]> {
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;
  return [
    ["undefined", undefined],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["function", () => 1],
    ["cycle", cycle],
    ["nested undefined", { a: [1, undefined] }],
    ["Date", new Date(0)],
    ["Map", new Map()],
    ["bigint", BigInt(1)],
    ["symbol", Symbol("s")],
  ];
}
