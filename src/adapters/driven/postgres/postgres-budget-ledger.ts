import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/pg-core";
import pg from "pg";
import type { Pool } from "pg";
import type { BudgetLedger } from "../../../ports/budget-ledger.js";
import { createBudgetLedger, type BudgetLedgerRows, type BudgetReservationRow, type BudgetRow } from "../kernel/budget-ledger.js";
import { emptyBudgetRow } from "../../../domain/budget/budget-rules.js";
import { postgresCall, type PostgresStoreContext } from "./postgres-database.js";

/**
 * The budget rows on PostgreSQL (BUD-1): each step is one transaction that row-locks the budget
 * rows it touches (one `INSERT … ON CONFLICT DO UPDATE … RETURNING` in key order, which also
 * creates absent rows, so two steps never deadlock and a first reservation locks a row too) and,
 * when the rows follow from it (settle, release), the reservation first (`SELECT … FOR UPDATE`),
 * before the kernel decides; its writes are one statement. Hosts racing on one budget serialise
 * on its row.
 *
 * @example
 * const rows = createPostgresBudgetRows(context);
 */
export function createPostgresBudgetRows({ db, tables, clock }: Pick<PostgresStoreContext, "db" | "tables" | "clock">): BudgetLedgerRows {
  const { budgetRows, budgetReservations } = tables;
  const columns = { spentTokens: sql`excluded.spent_tokens`, spentMicros: sql`excluded.spent_micros`, reservedTokens: sql`excluded.reserved_tokens`, reservedMicros: sql`excluded.reserved_micros`, grantedTokens: sql`excluded.granted_tokens`, grantedMicros: sql`excluded.granted_micros` };
  return {
    step: (reservationId, keysOf, decide) =>
      db.transaction(async (tx) => {
        const locked = new Map<string, BudgetRow>();
        // One statement locks and reads rows, creating absent ones as zeros: the no-op update of a
        // conflicting row takes its lock (rows in key order: no deadlock) and RETURNING gives its
        // current values.
        const lock = async (keys: string[]) => {
          if (keys.length === 0) return;
          const rows = await tx.insert(budgetRows).values(keys.sort().map(emptyBudgetRow)).onConflictDoUpdate({ target: budgetRows.key, set: { key: sql`excluded.key` } }).returning();
          for (const row of rows) locked.set(row.key, row);
        };
        const readReservation = async (forUpdate: boolean): Promise<BudgetReservationRow | null> => {
          const query = tx.select().from(budgetReservations).where(eq(budgetReservations.id, reservationId));
          const [found] = forUpdate ? await query.for("update") : await query;
          return found ? { id: found.id, keys: JSON.parse(found.keys) as string[], tokens: found.tokens, micros: found.micros, state: found.state as BudgetReservationRow["state"] } : null;
        };
        // BUD-1 speed: keys known before the reservation is read (a reserve, an extend) are locked
        // first; the reservation is then read once — a first reserve of the same id that committed
        // while this step waited for the rows is seen — so a reserve takes 5 round trips, not 7.
        const known = [...new Set(keysOf(null))];
        await lock(known);
        const reservation = await readReservation(known.length === 0);
        await lock([...new Set(keysOf(reservation))].filter((key) => !locked.has(key)));
        const writes = decide(reservation, locked);
        const held = writes.reservation;
        const reservationRow = held ? { id: held.id, keys: JSON.stringify(held.keys), tokens: held.tokens, micros: held.micros, state: held.state, updatedAt: clock.now() } : null;
        const putReservation = (on: typeof tx | ReturnType<typeof tx.with>) =>
          on.insert(budgetReservations).values(reservationRow!).onConflictDoUpdate({ target: budgetReservations.id, set: { state: sql`excluded.state`, updatedAt: sql`excluded.updated_at` } });
        if (writes.budgets.length > 0) {
          const budgets = tx.$with("budgets").as(tx.insert(budgetRows).values(writes.budgets).onConflictDoUpdate({ target: budgetRows.key, set: columns }).returning({ key: budgetRows.key }));
          // The budget rows and the reservation in one statement (a data-modifying WITH runs even unreferenced).
          if (reservationRow) await putReservation(tx.with(budgets));
          else await tx.with(budgets).select({ key: budgets.key }).from(budgets);
        } else if (reservationRow) await putReservation(tx);
        return writes.result;
      }),
    read: async (key) => (await db.select().from(budgetRows).where(eq(budgetRows.key, key)).limit(1))[0] ?? null,
  };
}

/** The budget row's columns as `budget_reserve(…)` answers them (bigint arrives as text). */
const ROW_COLUMNS = { spentTokens: "spent_tokens", spentMicros: "spent_micros", reservedTokens: "reserved_tokens", reservedMicros: "reserved_micros", grantedTokens: "granted_tokens", grantedMicros: "granted_micros" } as const;
/** A row of `budget_reserve(…)`: its outcome and, when refused, one locked budget row. */
type ReserveAnswerRow = { outcome: "known" | "held" | "refused"; key: string | null } & Record<(typeof ROW_COLUMNS)[keyof typeof ROW_COLUMNS], string | number>;

/**
 * The one-round-trip reserve and finish of the ledger (BUD-1 speed): the server-side functions of
 * migration 0004 (`budget_reserve`, `budget_finish`), called as named prepared statements on the
 * store's pool — parsed and planned once per connection, no `BEGIN`/`COMMIT` (one statement is
 * its own transaction) and no query built per call. Both lock the reservation row and then the
 * budget rows in key order, like {@link createPostgresBudgetRows}' step, so hosts racing on one
 * budget serialise on its rows and never overspend it.
 *
 * @example
 * const rows = { ...createPostgresBudgetRows(context), ...createPostgresBudgetCalls(context) };
 */
export function createPostgresBudgetCalls({ db, tables, clock }: Pick<PostgresStoreContext, "db" | "tables" | "clock">): Pick<BudgetLedgerRows, "reserve" | "finish"> {
  const pool = (db as typeof db & { $client: Pool }).$client;
  const schema = getTableConfig(tables.budgetRows).schema ?? "public";
  // Statement names are per connection; one per schema, since a host's pool may serve several.
  const tag = createHash("sha256").update(schema).digest("hex").slice(0, 16);
  const qualified = (name: string) => `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`;
  const reserveQuery = { name: `steamharness_budget_reserve_${tag}`, text: `select * from ${qualified("budget_reserve")}($1, $2, $3, $4, $5, $6, $7, $8)` };
  const finishQuery = { name: `steamharness_budget_finish_${tag}`, text: `select ${qualified("budget_finish")}($1, $2, $3, $4, $5) as finished` };
  return {
    async reserve({ id, limits, keys, unique, amount }) {
      const values = [id, keys, limits.map((limit) => limit.tokens ?? null), limits.map((limit) => limit.costMicros ?? null), amount.tokens, amount.costMicros, JSON.stringify(unique), clock.now()];
      const { rows } = await pool.query<ReserveAnswerRow>({ ...reserveQuery, values });
      const outcome = rows[0]?.outcome;
      if (outcome !== "refused") return { outcome: outcome === "known" ? "known" : "held" };
      const locked = new Map<string, BudgetRow>();
      for (const row of rows) {
        const columns = Object.entries(ROW_COLUMNS).map(([field, column]) => [field, Number(row[column])]);
        locked.set(row.key!, { key: row.key!, ...Object.fromEntries(columns) } as BudgetRow);
      }
      return { outcome, rows: locked };
    },
    async finish(reservationId, actual) {
      const values = [reservationId, actual !== null, actual?.tokens ?? 0, actual?.costMicros ?? 0, clock.now()];
      const { rows } = await pool.query<{ finished: boolean }>({ ...finishQuery, values });
      return rows[0]?.finished === true;
    },
  };
}

/**
 * The budget ledger of the PostgreSQL storage (`storage.budgets`): rows in the storage's schema,
 * shared by every host on the database. Reserve, settle and release are one round trip each
 * ({@link createPostgresBudgetCalls}); extend runs the kernel's step.
 *
 * @example
 * const ledger = createPostgresBudgetLedger(context);
 */
export function createPostgresBudgetLedger(context: PostgresStoreContext): BudgetLedger {
  return createBudgetLedger({ ...createPostgresBudgetRows(context), ...createPostgresBudgetCalls(context) }, postgresCall(context.state));
}
