import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import type { Clock } from "../../../../ports/clock.js";
import { drive, sqlStoreOf, type Sql, type SqlDriver, type SqlStatement, type SqlSteps, type SqlStore } from "../../kernel/sql-driver.js";
import { createSystemClock } from "../../system/clock.js";
import { sqliteCall } from "../store/sqlite-support.js";
import { drizzleOrm, drizzleSqliteCore } from "./drizzle-modules.js";

/** A statement as drizzle compiled it: its text, how its values bind, and how its rows map. */
interface Compiled {
  sql: string;
  bind(values: Record<string, unknown>): unknown[];
  fields: Sql;
  joins: Sql;
}

/**
 * Each statement compiled once per process. Why (FORK-1: a fork writes a new file; issue 45: a
 * new chat opens new files): every connection runs the same statements, and drizzle building a
 * query's text costs more CPU than SQLite compiling it, so a connection only prepares the text.
 * SQLite's tables are one definition per process, so a statement's text is the same on every
 * connection. Values are bound by getters made once, not by drizzle's per-call placeholder walk.
 */
const compiled = new WeakMap<SqlStatement<never>, Compiled>();
let dialect: Sql;

function compile(query: Sql): Compiled {
  const { is, Param, Placeholder } = drizzleOrm() as Sql;
  const getters = (query.query.params as Sql[]).map((p) =>
    is(p, Placeholder) ? (values: Sql) => values[p.name] : is(p, Param) && is(p.value, Placeholder) ? (values: Sql) => p.encoder.mapToDriverValue(values[p.value.name]) : () => p,
  );
  return { sql: query.query.sql, bind: (values) => getters.map((get: (values: Sql) => unknown) => get(values)), fields: query.fields, joins: query.joinsNotNullableMap };
}

/** An open SQLite database as the kernel's stores take it, with its connection and drizzle handle. */
export interface SqliteStore<T> extends SqlStore<T> {
  client: Database.Database;
  db: BetterSQLite3Database;
}

/**
 * The kernel's SQL row driver on a better-sqlite3 drizzle database: every query runs
 * synchronously, statements are built once per process and prepared once per driver, transactions are `BEGIN IMMEDIATE`.
 *
 * @example
 * const driver = sqliteSqlDriver(db, storeTables(), clock);
 */
export function sqliteSqlDriver<T>(db: Sql, tables: T, clock: Clock): SqlDriver<T> {
  let transaction: Sql;
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
      const { stmt, bind, fields, joins } = preparedOf(statement as SqlStatement<never>);
      const args = bind(params);
      if (statement.mode === "run") return stmt.run(...args).changes;
      if (!fields) return stmt[statement.mode](...args);
      const { mapResultRow } = drizzleOrm() as Sql;
      if (statement.mode === "all") return stmt.raw(true).all(...args).map((row: Sql) => mapResultRow(fields, row, joins));
      const row = stmt.raw(true).get(...args);
      return row === undefined ? undefined : mapResultRow(fields, row, joins);
    },
    // The transaction runs on the same connection, so `driver` (and its prepared statements) serve
    // inside it; better-sqlite3's own transaction function, made once, not drizzle's wrapper per call.
    transaction: (steps, options) => (transaction ??= db.$client.transaction((run: (tx: SqlDriver<T>) => SqlSteps<unknown>) => drive(run(driver))))[options?.readOnly ? "deferred" : "immediate"](steps),
    forUpdate: (query) => query,
    isUniqueViolation: (error) => /UNIQUE constraint failed/.test((error as Error | null)?.message ?? ""),
  };
  const prepared = new Map<SqlStatement<never>, Compiled & { stmt: Sql }>();
  const preparedOf = (statement: SqlStatement<never>) => {
    let query = prepared.get(statement);
    if (query) return query;
    let first = compiled.get(statement);
    if (!first) {
      const built = statement.build(driver, (name) => driver.ops.sql.placeholder(name));
      // A `sql` template (rows under its own names) or a query builder.
      first = compile("prepare" in built ? built.prepare() : { query: (dialect ??= new (drizzleSqliteCore().SQLiteSyncDialect)()).sqlToQuery(built) });
      compiled.set(statement, first);
    }
    prepared.set(statement, (query = { ...first, stmt: db.$client.prepare(first.sql) }));
    return query;
  };
  return driver;
}

/**
 * The kernel's store on an open connection (a file's or an in-memory one's): a row driver on
 * `tables`, the SQLite call (`storage_failure` once closed, busy retries), and a `close()` that
 * runs `release` once (default: closes the connection; a shared one's share is given back).
 *
 * @example
 * const tasks = createSqlMcpTaskStore(sqliteStoreOn(openMigratedSqlite(path, options), mcpTaskTables()));
 */
export function sqliteStoreOn<T>({ client, db, release = () => client.close() }: { client: Database.Database; db: BetterSQLite3Database; release?: () => void }, tables: T, clock: Clock = createSystemClock()): SqliteStore<T> {
  return { client, db, ...sqlStoreOf(sqliteSqlDriver(db, tables, clock), sqliteCall, release) };
}
