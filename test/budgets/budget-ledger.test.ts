import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { MemoryStorage } from "../../src/adapters/out/memory/memory-storage.js";
import { createMemoryBudgetLedger } from "../../src/adapters/out/memory/memory-budget-ledger.js";
import { createSqliteStorage } from "../../src/adapters/out/sqlite/store/sqlite-storage.js";
import { createPostgresStorage } from "../../src/adapters/out/postgres/postgres-storage.js";
import { openStoreDatabase, findStoreMigrationsFolder } from "../../src/adapters/out/sqlite/store/sqlite-database.js";
import { createSqliteBudgetLedger } from "../../src/adapters/out/sqlite/store/sqlite-budget-ledger.js";
import { runBudgetLedgerContract } from "../../src/testing/budget-ledger.contract.js";
import { describePostgres } from "../fixtures/postgres.js";

const api = { describe, it, expect };
const WORKER = join(import.meta.dirname, "fixtures", "ledger-racer.ts");

/** Runs `count` reservers in `processes` child processes against one store; resolves how many were granted. */
async function race(processes: number, store: Record<string, string>, budgetId: string, perProcess: number): Promise<number> {
  const runs = Array.from({ length: processes }, (_, n) =>
    new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", WORKER], { env: { ...process.env, ...store, BUDGET_ID: budgetId, RESERVATIONS: String(perProcess), PREFIX: `p${n}` }, stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      child.on("exit", (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`racer exited ${code}`))));
    }),
  );
  return (await Promise.all(runs)).reduce((a, b) => a + b, 0);
}

describe("BUD-1 budget ledger on memory", () => {
  runBudgetLedgerContract(api, () => ({ store: createMemoryBudgetLedger() }));
  it("BUD-1 MemoryStorage carries a ledger", async () => {
    expect(new MemoryStorage().budgets).toBeDefined();
  });
});

describe("BUD-1 budget ledger on SQLite", () => {
  it("BUD-1 a SQLite reserve and a settle of four budgets run 1 statement each, in autocommit (no BEGIN, no COMMIT)", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-budget-statements-"));
    const { db, sqlite } = openStoreDatabase(join(directory, "store.sqlite"), findStoreMigrationsFolder());
    try {
      // Counts the executions of the ledger's own prepared statements and of its transactions.
      let executed = 0;
      let transactions = 0;
      const counting = new Proxy(sqlite, {
        get(target, name) {
          if (name === "transaction") {
            return (body: (...args: never[]) => unknown) => {
              const transaction = target.transaction(body);
              const count = (run: (...args: never[]) => unknown) => (...args: never[]) => (transactions++, run(...args));
              return Object.assign(count(transaction), { immediate: count(transaction.immediate), deferred: count(transaction.deferred), exclusive: count(transaction.exclusive) });
            };
          }
          if (name !== "prepare") return Reflect.get(target, name, target);
          return (source: string) => {
            const statement = target.prepare(source);
            const count = (run: (...args: unknown[]) => unknown) => (...args: unknown[]) => (executed++, run.apply(statement, args));
            return { get: count(statement.get), run: count(statement.run), all: count(statement.all) };
          };
        },
      });
      const ledger = createSqliteBudgetLedger({ db, sqlite: counting, clock: { now: () => Date.now() }, state: { closed: false } });
      const limits = [
        { scope: "run" as const, id: "run-1", tokens: 1e9 },
        { scope: "conversation" as const, id: "c-1", tokens: 1e9 },
        { scope: "project" as const, id: "p-1", costMicros: 1e12 },
        { scope: "tenant" as const, id: "t-1", period: "month" as const, costMicros: 1e12 },
      ];
      for (const n of [0, 1]) {
        executed = 0;
        expect(await ledger.reserve({ reservationId: `r-${n}`, limits, amount: { tokens: 100, costMicros: 200 }, at: Date.now() })).toEqual({ ok: true });
        expect([executed, transactions, sqlite.inTransaction]).toEqual([1, 0, false]);
        executed = 0;
        expect(await ledger.settle(`r-${n}`, { tokens: 10, costMicros: 20 })).toBe(true);
        expect([executed, transactions, sqlite.inTransaction]).toEqual([1, 0, false]);
      }
      expect(await ledger.read(limits[3]!, Date.now())).toEqual(expect.objectContaining({ spent: { tokens: 20, costMicros: 40 }, reserved: { tokens: 0, costMicros: 0 } }));
    } finally {
      sqlite.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
  runBudgetLedgerContract(api, () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-budget-"));
    const storage = createSqliteStorage({ directory });
    const peer = createSqliteStorage({ directory });
    return { store: storage.budgets, inspect: { peer: peer.budgets }, dispose: async () => (await storage.close(), await peer.close(), rmSync(directory, { recursive: true, force: true })) };
  });
  it("BUD-1 two processes racing on one SQLite store never hold more than the limit", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-budget-race-"));
    try {
      createSqliteStorage({ directory }).close();
      // Limit 50 reservations of 10 tokens; 2 × 40 are attempted.
      const granted = await race(2, { LEDGER_SQLITE: directory }, "race", 40);
      expect(granted).toBe(50);
      const storage = createSqliteStorage({ directory });
      expect((await storage.budgets.read({ scope: "tenant", id: "race" }, Date.now())).reserved.tokens).toBe(500);
      await storage.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);
});

describePostgres("BUD-1 budget ledger on PostgreSQL", (database) => {
  runBudgetLedgerContract(api, async () => {
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    const peer = await createPostgresStorage({ connectionString: database.url, schema: database.schema });
    return { store: storage.budgets!, inspect: { peer: peer.budgets! }, dispose: async () => (await storage.close(), await peer.close()) };
  });
  it("BUD-1 two processes racing on one PostgreSQL schema never hold more than the limit", async () => {
    const schema = database.freshSchema();
    const storage = await createPostgresStorage({ connectionString: database.url, schema });
    try {
      const granted = await race(2, { LEDGER_POSTGRES: database.url, LEDGER_SCHEMA: schema }, "race", 40);
      expect(granted).toBe(50);
      expect((await storage.budgets!.read({ scope: "tenant", id: "race" }, Date.now())).reserved.tokens).toBe(500);
    } finally {
      await storage.close();
    }
  }, 60_000);
});
