import * as ops from "drizzle-orm";
import type { Clock } from "../../../ports/clock.js";
import { drive, preparedStatements, sqlStoreOf, type Sql, type SqlDriver, type SqlStatement, type SqlStore } from "../kernel/sql-driver.js";
import { createSystemClock } from "../system/clock.js";
import { driverFault, openPostgres, postgresCall, type PostgresConnection, type PostgresConnectionOptions, type PostgresQueryable } from "./postgres-database.js";
import type { PostgresTables } from "./schema.js";

/**
 * The kernel's SQL row driver on a node-postgres drizzle database (or transaction): every query
 * is a promise, statements are built once per driver, transactions hold `SELECT … FOR UPDATE` row locks.
 *
 * @example
 * const driver = postgresSqlDriver(db, tables, clock);
 */
export function postgresSqlDriver<T>(db: PostgresQueryable, tables: T, clock: Clock): SqlDriver<T> {
  const driver: SqlDriver<T> = {
    dialect: "postgres",
    db,
    tables,
    ops,
    clock,
    // Awaited here: drizzle's queries are thenables, not promises, and the kernel tells a later result by `instanceof Promise`.
    all: async (query) => await query,
    get: async (query) => (await query)[0],
    run: async (query) => (await query).rowCount ?? 0,
    execute(statement, params) {
      const result = preparedOf(statement as SqlStatement<never>).execute(params);
      return statement.mode === "run" ? driver.run(result) : driver[statement.mode](result);
    },
    transaction: (steps, options) =>
      db.transaction(async (tx) => drive(steps(postgresSqlDriver(tx, tables, clock))), options?.readOnly ? { isolationLevel: "repeatable read", accessMode: "read only" } : undefined),
    forUpdate: (query: Sql) => query.for("update"),
    isUniqueViolation: (error) => (driverFault(error) as { code?: string } | null)?.code === "23505",
  };
  // drizzle's unnamed prepared query: parsed by the server per call, so no name clashes between schemas on one pooled connection.
  const preparedOf = preparedStatements(driver, (query) => query.prepare());
  return driver;
}

/**
 * Opens the store's schema ({@link openPostgres}) as the kernel's stores take it: a row driver on
 * its tables, the PostgreSQL call, and a `close()` that releases the pool once (ending it when it
 * was made here), with the connection itself.
 *
 * @example
 * const keys = createApiKeyStore(await openPostgresStore({ connectionString }), createKeySecrets());
 */
export async function openPostgresStore(options: PostgresConnectionOptions, clock: Clock = createSystemClock(), migrations?: Parameters<typeof openPostgres>[1]): Promise<SqlStore<PostgresTables> & { connection: PostgresConnection }> {
  const connection = await openPostgres(options, migrations);
  return { connection, ...sqlStoreOf(postgresSqlDriver(connection.db, connection.tables, clock), postgresCall, () => connection.release()) };
}
