import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import type { Clock } from "../../../../ports/clock.js";
import { drive, preparedStatements, sqlStoreOf, type Sql, type SqlDriver, type SqlStatement, type SqlStore } from "../../kernel/sql-driver.js";
import { createSystemClock } from "../../system/clock.js";
import { sqliteCall } from "../store/sqlite-support.js";
import { drizzleOrm } from "./drizzle-modules.js";

/** An open SQLite database as the kernel's stores take it, with its connection, drizzle handle and closed flag. */
export interface SqliteStore<T> extends SqlStore<T> {
  client: Database.Database;
  db: BetterSQLite3Database;
  state: { closed: boolean };
}

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

/**
 * The kernel's store on an open connection (a file's or an in-memory one's): a row driver on
 * `tables`, the SQLite call (`storage_failure` once closed, busy retries), and a `close()` that
 * closes the connection once.
 *
 * @example
 * const tasks = createSqlMcpTaskStore(sqliteStoreOn(openMigratedSqlite(path, options), { mcpTasks }));
 */
export function sqliteStoreOn<T>({ client, db }: { client: Database.Database; db: BetterSQLite3Database }, tables: T, clock: Clock = createSystemClock()): SqliteStore<T> {
  return { client, db, ...sqlStoreOf(sqliteSqlDriver(db, tables, clock), sqliteCall, () => client.close()) };
}
