import { firstExceeded } from "../../../../domain/budget/budget-rules.js";
import type { BudgetAmount, BudgetLedger } from "../../../../ports/budget-ledger.js";
import { budgetReads, createBudgetLedger, type BudgetLedgerRows, type BudgetRow, type BudgetRowsReserve, type BudgetRowsReserveAnswer } from "../../kernel/budget-ledger.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import type { SqliteStore } from "../shared/sqlite-sql-driver.js";
import type { StoreTables } from "./schema.js";

/** The reserve statement's refusal: its trigger's `RAISE(ABORT, …)` (migration 0005). */
const isRefusal = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === "SQLITE_CONSTRAINT_TRIGGER" && (error as Error).message === "steamharness_budget_exceeded";

/**
 * The budget rows on SQLite (BUD-1). A reserve and a finish (settle, release) — the two steps of
 * every model call — are one statement each, run in autocommit mode: the triggers of migration
 * 0005 do the work inside SQLite. A statement in autocommit mode is its own transaction, which
 * takes the database's write lock as it starts, so no other connection — in this process or
 * another on the same file — writes budget rows between its check and its writes, and an abort
 * undoes the whole statement.
 *
 * - Reserve inserts into the `budget_reserve` view: a known id holds nothing more; otherwise the
 *   reservation row is written, the amount added to each budget row (created when absent), and a
 *   row then past its limit plus grants aborts the statement (nothing held). Only then, a refusal
 *   is decided again in a `BEGIN IMMEDIATE` transaction by the kernel's rule
 *   ({@link firstExceeded}) on the rows as they were, which names the budget (and holds, with the
 *   same statement, when another host freed room meanwhile).
 * - Finish updates the held reservation's `state` (and a settle's `spent_*`); its trigger moves
 *   the hold off every row and adds the actual amount to spent. Nothing else in the ledger moves
 *   a reservation out of `held`, so a hold is never counted twice.
 * - Finish-and-reserve (a run's settle with its next reservation) runs the finish statement, then
 *   the reserve statement, in one `BEGIN IMMEDIATE` transaction: one write lock and one WAL
 *   commit instead of two. A refusal's `RAISE(ABORT)` undoes only the reserve statement; the
 *   refusal is then decided again inside the same transaction, and the finish stands.
 *
 * BUD-1 speed: one statement instead of five plus `BEGIN` and `COMMIT`, and no `RETURNING`
 * (SQLite builds a temporary table for it, whose memory glibc took from and gave back to the
 * kernel with two `brk` system calls per statement). Inside the 100-step agent loop a reserve
 * plus settle costs about a third of the CPU it did (bench/budgets.bench.ts, part B); alone,
 * about a fifth less. Every commit writes the same pages as before. The statements are compiled
 * once to better-sqlite3 statements and run natively (drizzle's prepared queries map every
 * result field and every parameter per call, which cost as much CPU as SQLite).
 *
 * @example
 * const rows = createSqliteBudgetRows(openStoreFile({ directory }));
 */
export function createSqliteBudgetRows({ client: sqlite, db, driver }: Pick<SqliteStore<StoreTables>, "client" | "db" | "driver">): BudgetLedgerRows {
  const { and, eq, sql } = drizzleOrm();
  const { clock, tables: { budgetReservations } } = driver;
  // The reads a refusal is decided again with: the kernel's, run synchronously.
  const reads = budgetReads(driver);
  // The view of migration 0005, which drizzle cannot describe (like PostgreSQL's budget_reserve function).
  const reserveStatement = sqlite.prepare<[string, string, string, number, number, number]>("INSERT INTO budget_reserve (id, keys, limits, tokens, micros, updated_at) VALUES (?, ?, ?, ?, ?, ?)");
  // A held reservation settled (spent = the actual amount) or released; its trigger moves the hold. Built
  // by drizzle once, with SQLite's named parameters bound natively (drizzle's placeholders are
  // filled per call by walking each parameter's class chain, a tenth of a ledger call's CPU).
  const named = (name: string) => sql.raw(`@${name}`);
  const finishStatement = sqlite.prepare(
    db
      .update(budgetReservations)
      .set({ state: named("state"), spentTokens: named("spentTokens"), spentMicros: named("spentMicros"), updatedAt: named("updatedAt") })
      .where(and(eq(budgetReservations.id, named("id")), eq(budgetReservations.state, sql.raw("'held'"))))
      .toSQL().sql,
  );
  const hold = (request: BudgetRowsReserve): void => {
    const limits = request.limits.map((limit, index) => [request.keys[index], limit.tokens ?? null, limit.costMicros ?? null]);
    reserveStatement.run(request.id, JSON.stringify(request.unique), JSON.stringify(limits), request.amount.tokens, request.amount.costMicros, clock.now());
  };
  // A refused reserve decided again under the write lock, on the rows as they are before it.
  const decideRefusalNow = (request: BudgetRowsReserve): BudgetRowsReserveAnswer => {
    if (reads.reservation(request.id) !== null) return { outcome: "known" };
    const rows = new Map<string, BudgetRow>();
    for (const key of request.unique) {
      const row = reads.row(key) as BudgetRow | null;
      if (row) rows.set(key, row);
    }
    if (firstExceeded(request.limits, request.keys, rows, request.amount, request.at) !== null) return { outcome: "refused", rows };
    hold(request);
    return { outcome: "held" };
  };
  const decideRefusal = sqlite.transaction(decideRefusalNow);
  // The reserve statement; on a refusal (its RAISE(ABORT) undid the statement), `decide` decides it again.
  const holdOr = (request: BudgetRowsReserve, decide: (request: BudgetRowsReserve) => BudgetRowsReserveAnswer): BudgetRowsReserveAnswer => {
    try {
      hold(request);
      return { outcome: "held" };
    } catch (error) {
      if (!isRefusal(error)) throw error;
      return decide(request);
    }
  };
  const finishNow = (reservationId: string, actual: BudgetAmount | null): boolean =>
    finishStatement.run({ id: reservationId, state: actual === null ? "released" : "settled", spentTokens: actual?.tokens ?? null, spentMicros: actual?.costMicros ?? null, updatedAt: clock.now() }).changes === 1;
  // The finish, then the reserve, in one transaction: the write lock is taken once and the WAL
  // committed once. A refusal's RAISE(ABORT) undoes only the reserve statement (the transaction
  // and the finish stand), then the refusal is decided again inside the same transaction.
  const finishAndReserve = sqlite.transaction((finished: { id: string; actual: BudgetAmount | null }, request: BudgetRowsReserve): BudgetRowsReserveAnswer => {
    finishNow(finished.id, finished.actual);
    return holdOr(request, decideRefusalNow);
  });
  return {
    // A known id answers "held" here too (the view's insert cannot tell): both mean ok.
    reserve: (request) => holdOr(request, (refused) => decideRefusal.immediate(refused)),
    finish: finishNow,
    finishAndReserve: (finished, request) => finishAndReserve.immediate(finished, request),
  };
}

/**
 * The budget ledger of the SQLite storage (`storage.budgets`): rows in the store file, shared by
 * every process that opens the same store directory.
 *
 * @example
 * const ledger = createSqliteBudgetLedger(openStoreFile({ directory }));
 */
export function createSqliteBudgetLedger(store: Pick<SqliteStore<StoreTables>, "client" | "db" | "driver" | "call">): BudgetLedger {
  return createBudgetLedger(store.driver, createSqliteBudgetRows(store), store.call);
}
