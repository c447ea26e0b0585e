import type Database from "better-sqlite3";
import { firstExceeded } from "../../../../domain/budget/budget-rules.js";
import type { BudgetAmount, BudgetLedger } from "../../../../ports/budget-ledger.js";
import { createBudgetLedger, type BudgetDecision, type BudgetLedgerRows, type BudgetReservationRow, type BudgetRow, type BudgetRowsReserve } from "../../kernel/budget-ledger.js";
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

/** Thrown inside a reserve's transaction to roll it back; carries the budget rows as they were before it. */
class Refusal {
  constructor(readonly rows: ReadonlyMap<string, BudgetRow>) {}
}

/**
 * The budget rows on SQLite (BUD-1): each step is one `BEGIN IMMEDIATE` transaction, which takes
 * the database's write lock before reading, so no other connection — in this process or another
 * on the same file — reads or writes budget rows between the step's check and its writes.
 *
 * BUD-1 speed: the statements are drizzle queries compiled once to better-sqlite3 statements
 * (selects and RETURNING clauses alias their columns to the row's field names), run natively:
 * drizzle's prepared queries map every result field and every parameter per call, which cost as
 * much CPU as SQLite. Reserve and finish (settle, release) — the two steps of every model call —
 * have their own transactions of fewer statements than the kernel's read-decide-write step (5
 * instead of 10 for four budgets): a reserve claims its id, then adds its hold to each budget row
 * and reads the row back in one upsert each, and checks the rows as they were before with the
 * kernel's rule ({@link firstExceeded}); a refusal rolls the whole transaction back. A finish
 * marks the reservation finished and reads its rows and amounts in one statement, then moves the
 * hold to spent in one upsert per row.
 *
 * @example
 * const rows = createSqliteBudgetRows({ ...context, sqlite });
 */
export function createSqliteBudgetRows({ db, sqlite, clock }: SqliteBudgetContext): BudgetLedgerRows {
  const { and, eq, getTableColumns, sql } = drizzleOrm();
  const { budgetRows, budgetReservations } = storeTables();
  const p = sql.placeholder;
  const dialect = new (drizzleSqliteCore().SQLiteSyncDialect)();
  const aliased = (table: typeof budgetRows | typeof budgetReservations) => Object.entries(getTableColumns(table)).map(([name, column]) => sql`${column} AS ${sql.identifier(name)}`);
  const selectAll = (table: typeof budgetRows | typeof budgetReservations, where: SQL) => compile(sqlite, dialect.sqlToQuery(sql`SELECT ${sql.join(aliased(table), sql`, `)} FROM ${table} WHERE ${where}`));
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
  // Reserve: a known id (held, settled or released) holds nothing more.
  const claim = compile(sqlite, db.insert(budgetReservations).values({ id: p("id"), keys: p("keys"), tokens: p("tokens"), micros: p("micros"), state: "held", updatedAt: p("updatedAt") }).onConflictDoNothing().toSQL());
  // The hold added to one budget row (created when absent), the row as it is then read back.
  const hold = compile(
    sqlite,
    db
      .insert(budgetRows)
      .values({ key: p("key"), spentTokens: 0, spentMicros: 0, reservedTokens: p("tokens"), reservedMicros: p("micros"), grantedTokens: 0, grantedMicros: 0 })
      .onConflictDoUpdate({ target: budgetRows.key, set: { reservedTokens: sql`${budgetRows.reservedTokens} + excluded.reserved_tokens`, reservedMicros: sql`${budgetRows.reservedMicros} + excluded.reserved_micros` } })
      .returning(Object.fromEntries(Object.entries(getTableColumns(budgetRows)).map(([name, column]) => [name, sql`${column}`.as(name)])) as never)
      .toSQL(),
  );
  // Finish: a held reservation marked settled or released, its rows and amounts read back.
  const finishReservation = compile(
    sqlite,
    db
      .update(budgetReservations)
      .set({ state: sql`${p("state")}`, updatedAt: sql`${p("updatedAt")}` })
      .where(and(eq(budgetReservations.id, p("id")), eq(budgetReservations.state, "held")))
      .returning({ keys: budgetReservations.keys, tokens: budgetReservations.tokens, micros: budgetReservations.micros })
      .toSQL(),
  );
  // The hold taken off one row (never below zero, as the kernel's step) and the actual amount spent.
  const unhold = compile(
    sqlite,
    db
      .insert(budgetRows)
      .values({ key: p("key"), spentTokens: p("spentTokens"), spentMicros: p("spentMicros"), reservedTokens: 0, reservedMicros: 0, grantedTokens: 0, grantedMicros: 0 })
      .onConflictDoUpdate({
        target: budgetRows.key,
        set: {
          reservedTokens: sql`max(0, ${budgetRows.reservedTokens} - ${p("heldTokens")})`,
          reservedMicros: sql`max(0, ${budgetRows.reservedMicros} - ${p("heldMicros")})`,
          spentTokens: sql`${budgetRows.spentTokens} + excluded.spent_tokens`,
          spentMicros: sql`${budgetRows.spentMicros} + excluded.spent_micros`,
        },
      })
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
  const reserve = sqlite.transaction((request: BudgetRowsReserve): "known" | "held" => {
    const { id, amount } = request;
    if (claim.run({ id, keys: JSON.stringify(request.unique), tokens: amount.tokens, micros: amount.costMicros, updatedAt: clock.now() }).changes === 0) return "known";
    const before = new Map<string, BudgetRow>();
    for (const key of request.unique) {
      const row = hold.get<BudgetRow>({ key, tokens: amount.tokens, micros: amount.costMicros })!;
      before.set(key, { ...row, reservedTokens: row.reservedTokens - amount.tokens, reservedMicros: row.reservedMicros - amount.costMicros });
    }
    if (firstExceeded(request.limits, request.keys, before, amount, request.at) !== null) throw new Refusal(before);
    return "held";
  });
  const finish = sqlite.transaction((id: string, actual: BudgetAmount | null): boolean => {
    const held = finishReservation.get<{ keys: string; tokens: number; micros: number }>({ id, state: actual === null ? "released" : "settled", updatedAt: clock.now() });
    if (!held) return false;
    for (const key of JSON.parse(held.keys) as string[]) unhold.run({ key, spentTokens: actual?.tokens ?? 0, spentMicros: actual?.costMicros ?? 0, heldTokens: held.tokens, heldMicros: held.micros });
    return true;
  });
  return {
    step: (reservationId, keysOf, decide) => step.immediate(reservationId, keysOf, decide as BudgetDecision<unknown>) as never,
    read: (key) => getRow.get<BudgetRow>({ key }) ?? null,
    reserve(request) {
      try {
        return { outcome: reserve.immediate(request) };
      } catch (error) {
        if (error instanceof Refusal) return { outcome: "refused", rows: error.rows };
        throw error;
      }
    },
    finish: (reservationId, actual) => finish.immediate(reservationId, actual),
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
