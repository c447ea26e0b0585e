import type Database from "better-sqlite3";
import type { BudgetLedger } from "../../../../ports/budget-ledger.js";
import { createBudgetLedger, type BudgetDecision, type BudgetLedgerRows, type BudgetReservationRow, type BudgetRow } from "../../kernel/budget-ledger.js";
import type { SQL } from "drizzle-orm";
import { drizzleOrm, drizzleSqliteCore } from "../shared/drizzle-modules.js";
import { storeTables } from "./schema.js";
import type { SqliteStoreContext } from "./sqlite-kv-store.js";
import { sqliteCall } from "./sqlite-support.js";

/** The store's context and its better-sqlite3 connection (the steps' native transaction). */
export type SqliteBudgetContext = SqliteStoreContext & { sqlite: Database.Database };

/**
 * A drizzle query compiled once to a better-sqlite3 statement; placeholders bound by name. How
 * each parameter is bound is decided once (drizzle's `fillPlaceholders` decides it on every call
 * by walking each parameter's class chain, a tenth of a ledger call's CPU).
 */
function compile(sqlite: Database.Database, query: { sql: string; params: unknown[] }) {
  const { fillPlaceholders, is, Param, Placeholder } = drizzleOrm();
  const statement = sqlite.prepare(query.sql);
  const binders = query.params.map((param): ((values: Record<string, unknown>) => unknown) => {
    if (is(param, Placeholder)) return (values) => values[param.name];
    if (is(param, Param) && is(param.value, Placeholder)) {
      const { encoder, value } = param;
      return encoder ? (values) => encoder.mapToDriverValue(values[value.name]) : (values) => values[value.name];
    }
    const [constant] = fillPlaceholders([param], {});
    return () => constant;
  });
  const bind = (values: Record<string, unknown>) => binders.map((binder) => binder(values));
  return {
    get: <T>(values: Record<string, unknown>) => statement.get(...bind(values)) as T | undefined,
    run: (values: Record<string, unknown>) => statement.run(...bind(values)),
  };
}

/**
 * The budget rows on SQLite (BUD-1): each step is one `BEGIN IMMEDIATE` transaction, which takes
 * the database's write lock before reading, so no other connection — in this process or another
 * on the same file — reads or writes budget rows between the step's check and its writes.
 *
 * BUD-1 speed: the statements are drizzle queries compiled once to better-sqlite3 statements
 * (selects alias their columns to the row's field names), run natively: drizzle's prepared
 * queries map every result field and every parameter per call, which cost as much CPU as SQLite.
 *
 * @example
 * const rows = createSqliteBudgetRows({ ...context, sqlite });
 */
export function createSqliteBudgetRows({ db, sqlite, clock }: SqliteBudgetContext): BudgetLedgerRows {
  const { eq, getTableColumns, sql } = drizzleOrm();
  const { budgetRows, budgetReservations } = storeTables();
  const p = sql.placeholder;
  const dialect = new (drizzleSqliteCore().SQLiteSyncDialect)();
  const selectAll = (table: typeof budgetRows | typeof budgetReservations, where: SQL) => {
    const fields = Object.entries(getTableColumns(table)).map(([name, column]) => sql`${column} AS ${sql.identifier(name)}`);
    return compile(sqlite, dialect.sqlToQuery(sql`SELECT ${sql.join(fields, sql`, `)} FROM ${table} WHERE ${where}`));
  };
  const getRow = selectAll(budgetRows, eq(budgetRows.key, p("key")));
  const getReservation = selectAll(budgetReservations, eq(budgetReservations.id, p("id")));
  const putRow = compile(
    sqlite,
    db
      .insert(budgetRows)
      .values({ key: p("key"), spentTokens: p("spentTokens"), spentMicros: p("spentMicros"), reservedTokens: p("reservedTokens"), reservedMicros: p("reservedMicros"), grantedTokens: p("grantedTokens"), grantedMicros: p("grantedMicros") })
      .onConflictDoUpdate({
        target: budgetRows.key,
        set: { spentTokens: sql`excluded.spent_tokens`, spentMicros: sql`excluded.spent_micros`, reservedTokens: sql`excluded.reserved_tokens`, reservedMicros: sql`excluded.reserved_micros`, grantedTokens: sql`excluded.granted_tokens`, grantedMicros: sql`excluded.granted_micros` },
      })
      .toSQL(),
  );
  const putReservation = compile(
    sqlite,
    db
      .insert(budgetReservations)
      .values({ id: p("id"), keys: p("keys"), tokens: p("tokens"), micros: p("micros"), state: p("state"), updatedAt: p("updatedAt") })
      .onConflictDoUpdate({ target: budgetReservations.id, set: { state: sql`excluded.state`, updatedAt: sql`excluded.updated_at` } })
      .toSQL(),
  );
  const reservationOf = (id: string): BudgetReservationRow | null => {
    const row = getReservation.get<Omit<BudgetReservationRow, "keys"> & { keys: string }>({ id });
    return row ? { id: row.id, keys: JSON.parse(row.keys) as string[], tokens: row.tokens, micros: row.micros, state: row.state } : null;
  };
  // One native transaction function for every step (better-sqlite3 caches its BEGIN IMMEDIATE /
  // COMMIT), instead of a wrapper built per call.
  const step = sqlite.transaction((reservationId: string, keysOf: Parameters<BudgetLedgerRows["step"]>[1], decide: BudgetDecision<unknown>) => {
    const reservation = reservationOf(reservationId);
    const locked = new Map<string, BudgetRow>();
    for (const key of keysOf(reservation)) {
      const row = getRow.get<BudgetRow>({ key });
      if (row) locked.set(key, row);
    }
    const writes = decide(reservation, locked);
    for (const row of writes.budgets) putRow.run(row as unknown as Record<string, unknown>);
    if (writes.reservation) putReservation.run({ ...writes.reservation, keys: JSON.stringify(writes.reservation.keys), updatedAt: clock.now() });
    return writes.result;
  });
  return {
    step: (reservationId, keysOf, decide) => step.immediate(reservationId, keysOf, decide as BudgetDecision<unknown>) as never,
    read: (key) => getRow.get<BudgetRow>({ key }) ?? null,
  };
}

/**
 * The budget ledger of the SQLite storage (`storage.budgets`): rows in the store file, shared by
 * every process that opens the same store directory.
 *
 * @example
 * const ledger = createSqliteBudgetLedger({ ...context, sqlite });
 */
export function createSqliteBudgetLedger(context: SqliteBudgetContext): BudgetLedger {
  return createBudgetLedger(createSqliteBudgetRows(context), sqliteCall(context.state));
}
