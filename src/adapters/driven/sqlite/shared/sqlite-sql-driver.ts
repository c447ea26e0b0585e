import type { Clock } from "../../../../ports/clock.js";
import { drive, type Sql, type SqlDriver, type SqlStatement } from "../../kernel/sql-driver.js";
import { drizzleOrm } from "./drizzle-modules.js";

/**
 * Each statement's first prepared query in the process. Why (FORK-1: a fork writes a new file;
 * issue 45: a new chat opens new files): every connection runs the same statements, and drizzle
 * building a query's text costs more CPU than SQLite compiling it, so another connection takes a
 * copy of the first one with only its SQL prepared again. SQLite's tables are one definition per
 * process, so a statement's text is the same on every connection.
 */
const firstPrepared = new WeakMap<SqlStatement<never>, Sql>();

/**
 * The kernel's SQL row driver on a better-sqlite3 drizzle database: every query runs
 * synchronously, statements are built once per process and prepared once per driver, transactions are `BEGIN IMMEDIATE`.
 *
 * @example
 * const driver = sqliteSqlDriver(db, storeTables(), clock);
 */
export function sqliteSqlDriver<T>(db: Sql, tables: T, clock: Clock): SqlDriver<T> {
  const driver: SqlDriver<T> = {
    dialect: "sqlite",
    db,
    tables,
    ops: drizzleOrm(),
    clock,
    all: (query) => query.all(),
    get: (query) => query.get(),
    run: (query) => query.run().changes,
    execute(statement, params) {
      const query = preparedOf(statement as SqlStatement<never>);
      return statement.mode === "run" ? query.run(params).changes : query[statement.mode](params);
    },
    // The transaction runs on the same connection, so `driver` (and its prepared statements) serve inside it.
    transaction: (steps, options) => db.transaction(() => drive(steps(driver)), { behavior: options?.readOnly ? "deferred" : "immediate" }),
    forUpdate: (query) => query,
    isUniqueViolation: (error) => /UNIQUE constraint failed/.test((error as Error | null)?.message ?? ""),
  };
  const prepared = new Map<SqlStatement<never>, Sql>();
  const preparedOf = (statement: SqlStatement<never>): Sql => {
    let query = prepared.get(statement);
    if (query) return query;
    const first = firstPrepared.get(statement);
    query = first ? Object.assign(Object.create(Object.getPrototypeOf(first) as object) as object, first, { stmt: db.$client.prepare(first.query.sql) }) : statement.build(driver, (name) => driver.ops.sql.placeholder(name)).prepare();
    if (!first) firstPrepared.set(statement, query);
    prepared.set(statement, query);
    return query;
  };
  return driver;
}
