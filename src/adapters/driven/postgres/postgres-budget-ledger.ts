import { createHash } from "node:crypto";
import { getTableConfig } from "drizzle-orm/pg-core";
import pg from "pg";
import type { Pool } from "pg";
import type { BudgetLedger } from "../../../ports/budget-ledger.js";
import { createBudgetLedger, type BudgetLedgerRows, type BudgetRow } from "../kernel/budget-ledger.js";
import type { SqlDriver, SqlStore } from "../kernel/sql-driver.js";
import type { PostgresTables } from "./schema.js";

/** A row of `budget_reserve(…)`: its outcome and, when refused, one locked budget row. */
type ReserveAnswerRow = BudgetRow & { outcome: "known" | "held" | "refused" };
/** The budget row's columns as the ledger names them; bigint read as float8, a number (exact below 2^53, as the columns' values are). */
const ROW = `spent_tokens::float8 as "spentTokens", spent_micros::float8 as "spentMicros", reserved_tokens::float8 as "reservedTokens", reserved_micros::float8 as "reservedMicros", granted_tokens::float8 as "grantedTokens", granted_micros::float8 as "grantedMicros"`;

/**
 * The one-round-trip reserve and finish of the ledger (BUD-1 speed): the server-side functions of
 * migration 0004 (`budget_reserve`, `budget_finish`), called as named prepared statements on the
 * store's pool — parsed and planned once per connection, no `BEGIN`/`COMMIT` (one statement is
 * its own transaction) and no query built per call. Both lock the reservation row and then the
 * budget rows in key order, so hosts racing on one budget serialise on its rows and never overspend it.
 *
 * @example
 * const ledger = createBudgetLedger(driver, createPostgresBudgetCalls(driver), call);
 */
export function createPostgresBudgetCalls({ db, tables, clock }: SqlDriver<PostgresTables>): BudgetLedgerRows {
  const pool: Pool = db.$client;
  const schema = getTableConfig(tables.budgetRows).schema ?? "public";
  // Statement names are per connection; one per schema, since a host's pool may serve several.
  const tag = createHash("sha256").update(schema).digest("hex").slice(0, 16);
  const qualified = (name: string) => `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`;
  const reserveQuery = { name: `steamharness_budget_reserve_${tag}`, text: `select outcome, key, ${ROW} from ${qualified("budget_reserve")}($1, $2, $3, $4, $5, $6, $7, $8)` };
  const finishQuery = { name: `steamharness_budget_finish_${tag}`, text: `select ${qualified("budget_finish")}($1, $2, $3, $4, $5) as finished` };
  return {
    async reserve({ id, limits, keys, unique, amount }) {
      const values = [id, keys, limits.map((limit) => limit.tokens ?? null), limits.map((limit) => limit.costMicros ?? null), amount.tokens, amount.costMicros, JSON.stringify(unique), clock.now()];
      const { rows } = await pool.query<ReserveAnswerRow>({ ...reserveQuery, values });
      const outcome = rows[0]?.outcome;
      if (outcome !== "refused") return { outcome: outcome === "known" ? "known" : "held" };
      return { outcome, rows: new Map(rows.map((row) => [row.key, row])) };
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
 * ({@link createPostgresBudgetCalls}); extend runs the kernel's grant (kernel/budget-ledger.ts).
 *
 * @example
 * const ledger = createPostgresBudgetLedger(await openPostgresStore(options));
 */
export function createPostgresBudgetLedger({ driver, call }: SqlStore<PostgresTables>): BudgetLedger {
  return createBudgetLedger(driver, createPostgresBudgetCalls(driver), call);
}
