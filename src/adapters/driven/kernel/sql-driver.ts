/**
 * One row driver for both SQL dialects (ARCH-8): the rows of a port family are written once, as
 * drizzle queries over the tables both dialects build from one definition (tables.ts), and each
 * family only says how a query runs — SQLite synchronously (better-sqlite3; its transactions
 * cannot await), PostgreSQL with promises. better-auth's one drizzle adapter for several dialects
 * is the model.
 *
 * Queries are typed loosely ({@link Sql}): sqlite-core's and pg-core's builder types do not unify,
 * and the kernel loads no drizzle (SQLite loads it lazily, PERF-1), so the family hands in the
 * operators. The contract suites run every query on both dialects.
 */
import type { Clock } from "../../../ports/clock.js";
import type { Awaitable, StoreCall } from "./store-call.js";
import type { Dialect } from "./table-definition.js";

/** A drizzle database, table, column, condition or query of either dialect. */
export type Sql = any;

/** drizzle-orm's operators and `sql` tag: one set for every dialect. */
export type SqlOperators = Record<"and" | "or" | "eq" | "ne" | "gt" | "gte" | "lt" | "lte" | "asc" | "desc" | "inArray" | "isNull" | "isNotNull" | "count", (...args: Sql[]) => Sql> & { sql: Sql };

/**
 * A statement on a hot path, written once: `build` makes the query on a driver (its database,
 * tables and operators) with `param(name)` for each value. Each driver builds it once with
 * placeholders (no query building per call): SQLite prepares it once (no statement parse per
 * call either); PostgreSQL keeps drizzle's unnamed prepared query, parsed by the server per call
 * (a named server-side statement would clash between schemas on one pooled connection).
 */
export interface SqlStatement<P extends Record<string, unknown>> {
  /** `get`: the first row or undefined; `all`: the rows; `run`: how many rows changed. */
  mode: "get" | "all" | "run";
  build(driver: SqlDriver, param: (name: keyof P & string) => Sql): Sql;
}

/** The steps of a transaction: a generator yielding each query's result (a value on SQLite, a promise on PostgreSQL). */
export type SqlSteps<R> = Generator<unknown, R, Sql>;

/** How one dialect runs the shared queries. */
export interface SqlDriver<T = Sql> {
  dialect: Dialect;
  /** The drizzle database (inside {@link SqlDriver.transaction}: the transaction). */
  db: Sql;
  tables: T;
  ops: SqlOperators;
  clock: Clock;
  /** The rows `query` reads. */
  all(query: Sql): Awaitable<Sql[]>;
  /** The first row `query` reads, or undefined. */
  get(query: Sql): Awaitable<Sql | undefined>;
  /** Runs a write; how many rows it changed. */
  run(query: Sql): Awaitable<number>;
  /** Runs a {@link SqlStatement} with `params`. */
  execute<P extends Record<string, unknown>>(statement: SqlStatement<P>, params: P): Awaitable<Sql>;
  /**
   * Runs `steps` as one transaction no other writer, in any process, interleaves with: SQLite's
   * `BEGIN IMMEDIATE` (run synchronously: a step that yields a promise is a bug), PostgreSQL's
   * transaction with the row locks {@link SqlDriver.forUpdate} takes. A throw rolls back.
   * `readOnly`: one consistent snapshot that takes no write lock (SQLite's deferred transaction,
   * PostgreSQL's read-only REPEATABLE READ).
   */
  transaction<R>(steps: (tx: SqlDriver<T>) => SqlSteps<R>, options?: { readOnly: true }): Awaitable<R>;
  /** `query` row-locking what it reads until the transaction ends (SQLite: as is; its transaction holds the database's write lock). */
  forUpdate(query: Sql): Sql;
  /** True for a unique-constraint violation the driver reported. */
  isUniqueViolation(error: unknown): boolean;
}

/** An open database as a kernel store takes it: its row driver, the family's call, and `close()`, which releases the connection once. */
export interface SqlStore<T = Sql> {
  driver: SqlDriver<T>;
  call: StoreCall;
  close(): Promise<void>;
}

/**
 * The store of `driver`: the family's call on a closed flag (`callOn`, which refuses calls once
 * it is set), and a `close()` that sets it and runs `release` once (every call answers when it has run).
 *
 * @example
 * const store = sqlStoreOf(postgresSqlDriver(db, tables, clock), postgresCall, () => pool.end());
 */
export function sqlStoreOf<T>(driver: SqlDriver<T>, callOn: (state: { closed: boolean }) => StoreCall, release: () => unknown): SqlStore<T> {
  const state = { closed: false };
  let closing: Promise<void> | undefined;
  const close = async () => {
    state.closed = true;
    await release();
  };
  return { driver, call: callOn(state), close: () => (closing ??= close()) };
}

/**
 * Drives transaction `steps`: each yielded value is the next query's result, awaited only when it
 * is a promise, so a SQLite transaction stays synchronous.
 *
 * @example
 * const changed = drive((function* () { return (yield db.run(update)) as number; })());
 */
export function drive<R>(steps: SqlSteps<R>, last?: { value: unknown } | { error: unknown }): Awaitable<R> {
  let next = last === undefined ? steps.next() : "error" in last ? steps.throw(last.error) : steps.next(last.value);
  while (!next.done) {
    if (next.value instanceof Promise) {
      return next.value.then(
        (value: unknown) => drive(steps, { value }),
        (error: unknown) => drive(steps, { error }),
      );
    }
    next = steps.next(next.value);
  }
  return next.value;
}

/**
 * `next(value)` now when `value` is plain, after it resolves when it is a promise: one-step
 * shared code that stays synchronous on SQLite.
 *
 * @example
 * const exists = then(driver.get(query), (row) => row !== undefined);
 */
export function then<A, B>(value: Awaitable<A>, next: (value: A) => B): Awaitable<B> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * The prepared form of each {@link SqlStatement} on `driver`: built once with placeholders and
 * made ready by the dialect's `prepare`, kept per driver (a transaction's driver has its own).
 *
 * @example
 * const preparedOf = preparedStatements(driver, (query) => query.prepare());
 */
export function preparedStatements(driver: SqlDriver, prepare: (query: Sql) => Sql): (statement: SqlStatement<never>) => Sql {
  const prepared = new Map<SqlStatement<never>, Sql>();
  return (statement) => {
    let query = prepared.get(statement);
    if (!query) prepared.set(statement, (query = prepare(statement.build(driver, (name) => driver.ops.sql.placeholder(name)))));
    return query;
  };
}
