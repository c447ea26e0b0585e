import { randomUUID } from "node:crypto";
import { expect, it } from "@jest/globals";
import pg from "pg";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { budgetRowKey } from "../../src/domain/budget/budget-rules.js";
import type { BudgetLimit } from "../../src/ports/budget-ledger.js";
import { describePostgres, quoteIdentifier } from "../fixtures/postgres.js";

const AT = Date.UTC(2026, 11, 1, 12);

/** A host pool whose connections count the statements sent on them (each one round trip). */
function countingPool(url: string): { pool: pg.Pool; sent: () => number } {
  let sent = 0;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => ((sent += 1), query(...args))) as typeof client.query;
  });
  return { pool, sent: () => sent };
}

describePostgres("BUD-1 budget ledger on PostgreSQL: one round trip per step", (database) => {
  it("BUD-1 reserve, settle and release are one round trip each (migration 0004's functions), refusals too", async () => {
    const { pool, sent } = countingPool(database.url);
    const storage = await createPostgresStorage({ pool, schema: database.freshSchema() });
    try {
      const ledger = storage.budgets!;
      const run = `run-${randomUUID()}`;
      const limits: BudgetLimit[] = [
        { scope: "run", id: run, tokens: 1000 },
        { scope: "conversation", id: `c-${run}`, tokens: 1000 },
        { scope: "project", id: `p-${run}`, costMicros: 1000 },
        { scope: "tenant", id: `t-${run}`, period: "month", costMicros: 1000 },
      ];
      const steps: Array<[string, () => Promise<unknown>]> = [
        ["first reserve", () => ledger.reserve({ reservationId: "a", limits, amount: { tokens: 600, costMicros: 10 }, at: AT })],
        ["refused reserve", () => ledger.reserve({ reservationId: "b", limits, amount: { tokens: 600, costMicros: 10 }, at: AT })],
        ["repeated reserve", () => ledger.reserve({ reservationId: "a", limits, amount: { tokens: 600, costMicros: 10 }, at: AT })],
        ["settle", () => ledger.settle("a", { tokens: 100, costMicros: 5 })],
        ["reserve", () => ledger.reserve({ reservationId: "c", limits, amount: { tokens: 10, costMicros: 10 }, at: AT })],
        ["release", () => ledger.release("c")],
        ["finished settle", () => ledger.settle("a", { tokens: 1, costMicros: 1 })],
      ];
      const counts: Record<string, number> = {};
      for (const [name, step] of steps) {
        const before = sent();
        await step();
        counts[name] = sent() - before;
      }
      expect(counts).toEqual({ "first reserve": 1, "refused reserve": 1, "repeated reserve": 1, settle: 1, reserve: 1, release: 1, "finished settle": 1 });
      expect(await ledger.read(limits[3]!, AT)).toEqual(expect.objectContaining({ window: "2026-12", spent: { tokens: 100, costMicros: 5 }, reserved: { tokens: 0, costMicros: 0 } }));
    } finally {
      await storage.close();
      await pool.end();
    }
  });

  it("BUD-1 holds written by the transaction path (hosts before migration 0004) settle and release through the new functions", async () => {
    const schema = database.freshSchema();
    const storage = await createPostgresStorage({ pool: database.pool, schema });
    try {
      const budget: BudgetLimit = { scope: "tenant", id: "upgrade", period: "day", tokens: 100 };
      const run: BudgetLimit = { scope: "run", id: "upgrade-run", tokens: 100 };
      const keys = [budget, run].map((limit) => budgetRowKey(limit, AT));
      // Two holds as that path wrote them, row by row: the reservations, and their amounts on both budget rows.
      const table = (name: string) => `${quoteIdentifier(schema)}.${name}`;
      await database.raw.query(`insert into ${table("budget_reservations")} (id, keys, tokens, micros, state, updated_at) values ('old-1', $1, 40, 7, 'held', $2), ('old-2', $1, 30, 0, 'held', $2)`, [JSON.stringify(keys), AT]);
      await database.raw.query(`insert into ${table("budget_rows")} select key, 0, 0, 70, 7, 0, 0 from unnest($1::text[]) as key`, [keys]);
      expect(await storage.budgets!.settle("old-1", { tokens: 25, costMicros: 3 })).toBe(true);
      expect(await storage.budgets!.release("old-2")).toBe(true);
      expect(await storage.budgets!.reserve({ reservationId: "old-1", limits: [budget, run], amount: { tokens: 40, costMicros: 7 }, at: AT })).toEqual({ ok: true });
      for (const limit of [budget, run]) {
        expect(await storage.budgets!.read(limit, AT)).toEqual(expect.objectContaining({ spent: { tokens: 25, costMicros: 3 }, reserved: { tokens: 0, costMicros: 0 } }));
      }
    } finally {
      await storage.close();
    }
  });

  it("BUD-1 two schemas on one host pool, one named with quotes and spaces, keep their ledgers apart", async () => {
    const odd = `bud "odd" ${randomUUID().slice(0, 8)}`;
    const plain = database.freshSchema();
    const first = await createPostgresStorage({ pool: database.pool, schema: odd });
    const second = await createPostgresStorage({ pool: database.pool, schema: plain });
    try {
      const budget: BudgetLimit = { scope: "tenant", id: "shared-name", tokens: 100 };
      // The same reservation id in both schemas, over and over on the pool's shared connections.
      for (let n = 0; n < 6; n++) {
        expect(await first.budgets!.reserve({ reservationId: `r${n}`, limits: [budget], amount: { tokens: 10, costMicros: 0 }, at: AT })).toEqual({ ok: true });
        expect(await second.budgets!.reserve({ reservationId: `r${n}`, limits: [budget], amount: { tokens: 15, costMicros: 0 }, at: AT })).toEqual({ ok: true });
      }
      expect(await first.budgets!.settle("r0", { tokens: 3, costMicros: 0 })).toBe(true);
      expect(await first.budgets!.read(budget, AT)).toEqual(expect.objectContaining({ spent: { tokens: 3, costMicros: 0 }, reserved: { tokens: 50, costMicros: 0 } }));
      expect(await second.budgets!.read(budget, AT)).toEqual(expect.objectContaining({ spent: { tokens: 0, costMicros: 0 }, reserved: { tokens: 90, costMicros: 0 } }));
      const refused = await second.budgets!.reserve({ reservationId: "over", limits: [budget], amount: { tokens: 11, costMicros: 0 }, at: AT });
      expect(refused).toEqual({ ok: false, exceeded: { scope: "tenant", id: "shared-name", window: null, unit: "tokens", spent: 0, reserved: 90, limit: 100, requested: 11 } });
    } finally {
      await first.close();
      await second.close();
      await database.raw.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(odd)} CASCADE`);
    }
  });
});
