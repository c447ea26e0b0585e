// ARCH-8: the budget refusal rule is written in TypeScript (firstExceeded), in SQLite's reserve
// trigger and in PostgreSQL's reserve function. This property test holds every dialect's own
// reserve path (and finish-and-reserve) to firstExceeded on random ledgers, so the three cannot
// drift apart: before each reserve the expected outcome is computed from the rows the ledger
// reads back, then compared with what the store decided.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { createMemoryBudgetLedger } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { budgetRowKey, firstExceeded, type BudgetRow } from "../../src/domain/budget/budget-rules.js";
import type { BudgetLedger, BudgetLimit } from "../../src/ports/budget-ledger.js";
import { describePostgres } from "../fixtures/postgres.js";

const AT = Date.UTC(2026, 11, 6, 12);
const SCOPES = ["run", "conversation", "project", "tenant"] as const;
const small = fc.integer({ min: 0, max: 60 });
const amount = fc.record({ tokens: small, costMicros: small });
/** A limit on one of three budgets (so requests share rows, and one request may name a row twice). */
const limit = fc.record(
  { budget: fc.integer({ min: 0, max: 2 }), period: fc.constantFrom(undefined, "day" as const), tokens: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }), costMicros: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }) },
  { requiredKeys: ["budget"] },
);
const step = fc.oneof(
  fc.record({ kind: fc.constant("reserve" as const), limits: fc.array(limit, { minLength: 1, maxLength: 4 }), amount, repeat: fc.boolean() }),
  fc.record({ kind: fc.constantFrom("settle" as const, "release" as const), pick: fc.nat(), actual: amount }),
  fc.record({ kind: fc.constant("finishAndReserve" as const), pick: fc.nat(), actual: amount, limits: fc.array(limit, { minLength: 1, maxLength: 4 }), amount }),
  fc.record({ kind: fc.constant("extend" as const), budget: fc.integer({ min: 0, max: 2 }), amount }),
);

/** Runs random ledgers on `ledger` and checks every reserve against firstExceeded; `runs` ledgers of up to 12 steps. */
async function checkRefusalRule(ledger: BudgetLedger, runs: number): Promise<void> {
  let ledgerNumber = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
      // Each ledger its own budget ids and reservation ids on the one store.
      const run = `l${ledgerNumber++}-${Math.random().toString(36).slice(2, 8)}`;
      const budgetOf = (n: number): { scope: (typeof SCOPES)[number]; id: string } => ({ scope: SCOPES[n]!, id: `${run}-b${n}` });
      const limitsOf = (drawn: { budget: number; period?: "day"; tokens?: number; costMicros?: number }[]): BudgetLimit[] =>
        drawn.map(({ budget, period, tokens, costMicros }) => ({ ...budgetOf(budget), ...(period ? { period } : {}), ...(tokens === undefined ? {} : { tokens }), ...(costMicros === undefined ? {} : { costMicros }) }));
      const reservations: string[] = [];
      let next = 0;
      /** Reserves through `reserve` and compares its outcome with firstExceeded on the rows read back before. */
      const reserveChecked = async (limits: BudgetLimit[], held: { tokens: number; costMicros: number }, reserve: (id: string) => Promise<unknown>, id: string, known: boolean) => {
        const keys = limits.map((one) => budgetRowKey(one, AT));
        const rows = new Map<string, BudgetRow>();
        for (const one of limits) {
          const state = await ledger.read(one, AT);
          const key = budgetRowKey(one, AT);
          rows.set(key, { key, spentTokens: state.spent.tokens, spentMicros: state.spent.costMicros, reservedTokens: state.reserved.tokens, reservedMicros: state.reserved.costMicros, grantedTokens: state.granted.tokens, grantedMicros: state.granted.costMicros });
        }
        const exceeded = known ? null : firstExceeded(limits, keys, rows, held, AT);
        expect({ id, limits, amount: held, outcome: await reserve(id) }).toEqual({ id, limits, amount: held, outcome: exceeded === null ? { ok: true } : { ok: false, exceeded } });
        if (exceeded === null && !known) reservations.push(id);
      };
      for (const drawn of steps) {
        const picked = (pick: number): string => reservations[pick % Math.max(1, reservations.length)] ?? `${run}-none`;
        if (drawn.kind === "reserve") {
          const known = drawn.repeat && reservations.length > 0;
          const id = known ? reservations[reservations.length - 1]! : `${run}-r${next++}`;
          const limits = limitsOf(drawn.limits);
          await reserveChecked(limits, drawn.amount, (reservationId) => ledger.reserve({ reservationId, limits, amount: drawn.amount, at: AT }), id, known);
        } else if (drawn.kind === "settle") await ledger.settle(picked(drawn.pick), drawn.actual);
        else if (drawn.kind === "release") await ledger.release(picked(drawn.pick));
        else if (drawn.kind === "extend") await ledger.extend({ ...budgetOf(drawn.budget), grantId: `${run}-g${next++}`, amount: drawn.amount, at: AT });
        else if (drawn.kind === "finishAndReserve") {
          // The finish stands whatever the reserve answers; the rows are read after it.
          const finished = picked(drawn.pick);
          await ledger.settle(finished, drawn.actual);
          const limits = limitsOf(drawn.limits);
          await reserveChecked(limits, drawn.amount, (reservationId) => ledger.finishAndReserve!({ reservationId: finished, actual: drawn.actual }, { reservationId, limits, amount: drawn.amount, at: AT }), `${run}-r${next++}`, false);
        }
      }
    }),
    { numRuns: runs },
  );
}

describe("ARCH-8 the budget refusal rule: every dialect's reserve path agrees with firstExceeded", () => {
  it("ARCH-8 memory: random ledgers refuse exactly where firstExceeded does", async () => {
    await checkRefusalRule(createMemoryBudgetLedger(), 150);
  });

  const directory = mkdtempSync(join(tmpdir(), "sh-refusal-rule-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  it("ARCH-8 SQLite (the reserve trigger): random ledgers refuse exactly where firstExceeded does", async () => {
    const storage = createSqliteStorage({ directory });
    try {
      await checkRefusalRule(storage.budgets, 150);
    } finally {
      await storage.close();
    }
  });
});

describePostgres("ARCH-8 the budget refusal rule on PostgreSQL", (database) => {
  it("ARCH-8 PostgreSQL (the reserve function): random ledgers refuse exactly where firstExceeded does", async () => {
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    try {
      await checkRefusalRule(storage.budgets!, 100);
    } finally {
      await storage.close();
    }
  });
});
