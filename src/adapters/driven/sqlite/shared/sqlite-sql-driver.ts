import type { Clock } from "../../../../ports/clock.js";
import { drive, type Sql, type SqlDriver, type SqlStatement } from "../../kernel/sql-driver.js";
import { drizzleOrm } from "./drizzle-modules.js";

/**
 * The kernel's SQL row driver on a better-sqlite3 drizzle database: every query runs
 * synchronously, statements are prepared once per driver, transactions are `BEGIN IMMEDIATE`.
 *
 * @example
 * const driver = sqliteSqlDriver(db, storeTables(), clock);
 */
export function sqliteSqlDriver<T>(db: Sql, tables: T, clock: Clock): SqlDriver<T> {
  const ops = drizzleOrm();
  const placeholder = (name: string) => ops.sql.placeholder(name);
  const prepared = new Map<SqlStatement<never>, Sql>();
  const driver: SqlDriver<T> = {
    dialect: "sqlite",
    db,
    tables,
    ops,
    clock,
    all: (query) => query.all(),
    get: (query) => query.get(),
    run: (query) => query.run().changes,
    execute(statement, params) {
      let query = prepared.get(statement as SqlStatement<never>);
      if (!query) prepared.set(statement as SqlStatement<never>, (query = statement.build(driver, placeholder).prepare()));
      return statement.mode === "run" ? query.run(params).changes : query[statement.mode](params);
    },
    // The transaction runs on the same connection, so `driver` (and its prepared statements) serve inside it.
    transaction: (steps, options) => db.transaction(() => drive(steps(driver)), { behavior: options?.readOnly ? "deferred" : "immediate" }),
    forUpdate: (query) => query,
    isUniqueViolation: (error) => /UNIQUE constraint failed/.test((error as Error | null)?.message ?? ""),
  };
  return driver;
}
