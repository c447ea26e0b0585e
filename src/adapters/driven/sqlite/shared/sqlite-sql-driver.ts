import type { Clock } from "../../../../ports/clock.js";
import { drive, preparedStatements, type Sql, type SqlDriver, type SqlStatement } from "../../kernel/sql-driver.js";
import { drizzleOrm } from "./drizzle-modules.js";

/**
 * The kernel's SQL row driver on a better-sqlite3 drizzle database: every query runs
 * synchronously, statements are prepared once per driver, transactions are `BEGIN IMMEDIATE`.
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
  const preparedOf = preparedStatements(driver, (query) => query.prepare());
  return driver;
}
