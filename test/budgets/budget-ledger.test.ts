import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import Database from "better-sqlite3";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createMemoryBudgetLedger } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { openStoreFile, findStoreMigrationsFolder } from "../../src/adapters/driven/sqlite/store/sqlite-database.js";
import { createSqliteBudgetLedger } from "../../src/adapters/driven/sqlite/store/sqlite-budget-ledger.js";
import { storeTables } from "../../src/adapters/driven/sqlite/store/schema.js";
import { sqliteStoreOn } from "../../src/adapters/driven/sqlite/shared/sqlite-sql-driver.js";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { runBudgetLedgerContract } from "../../src/testing/budget-ledger.contract.js";
import { describePostgres } from "../fixtures/postgres.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

const api = { describe, it, expect };
// Bundled once (and kept between runs) instead of compiled through tsx in every racer (ARCH-12).
const WORKER = join(import.meta.dirname, "fixtures", "ledger-racer.ts");

/** Runs `count` reservers in `processes` child processes against one store; resolves how many were granted. */
async function race(processes: number, store: Record<string, string>, budgetId: string, perProcess: number): Promise<number> {
  const runs = Array.from({ length: processes }, (_, n) =>
    new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, [bundledFixture(WORKER)], { env: { ...process.env, ...store, BUDGET_ID: budgetId, RESERVATIONS: String(perProcess), PREFIX: `p${n}` }, stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      child.on("exit", (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`racer exited ${code}`))));
    }),
  );
  return (await Promise.all(runs)).reduce((a, b) => a + b, 0);
}

/** Runs `body` on a fresh store database (its drizzle handle and connection, and its file), then closes and removes it. */
async function withStoreDatabase(prefix: string, body: (store: ReturnType<typeof openStoreFile>, file: string) => Promise<void>): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  const file = join(directory, "store.sqlite");
  const store = openStoreFile({ file });
  try {
    await body(store, file);
  } finally {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

describe("BUD-1 budget ledger on memory", () => {
  runBudgetLedgerContract(api, () => ({ store: createMemoryBudgetLedger() }));
  it("BUD-1 MemoryStorage carries a ledger", async () => {
    expect(new MemoryStorage().budgets).toBeDefined();
  });
});

describe("BUD-1 budget ledger on SQLite", () => {
  it("BUD-1 a SQLite reserve and a settle of four budgets run 1 statement each, in autocommit (no BEGIN, no COMMIT)", async () => {
    await withStoreDatabase("sh-budget-statements-", async (store) => {
      const sqlite = store.client;
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
      const ledger = createSqliteBudgetLedger({ ...store, client: counting });
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
    });
  });
  it("BUD-1 one SQLite reserve statement refuses an overspend of any of its budgets whole: no reservation, no row, nothing held", async () => {
    await withStoreDatabase("sh-budget-trigger-", async (store) => {
      const sqlite = store.client;
      const keys = ["run:r-1", "conversation:c-1", "project:p-1", "tenant:t-1:month:2026-12"];
      sqlite.prepare("INSERT INTO budget_rows VALUES ('tenant:t-1:month:2026-12', 900, 0, 50, 0, 20, 0)").run();
      const reserve = sqlite.prepare("INSERT INTO budget_reserve (id, keys, limits, tokens, micros, updated_at) VALUES (?, ?, ?, ?, ?, 0)");
      const rows = () => sqlite.prepare("SELECT key, spent_tokens, reserved_tokens FROM budget_rows ORDER BY key").all();
      // Three budgets have room; the tenant's has 1000 + 20 granted − 950 = 70 tokens left.
      const limits = (tenant: number) => JSON.stringify([[keys[0], 1e9, null], [keys[1], 1e9, null], [keys[2], null, 1e12], [keys[3], tenant, null]]);
      expect(() => reserve.run("r-1:0:0", JSON.stringify(keys), limits(1000), 71, 5)).toThrow(expect.objectContaining({ code: "SQLITE_CONSTRAINT_TRIGGER", message: "steamharness_budget_exceeded" }));
      expect(sqlite.prepare("SELECT count(*) AS n FROM budget_reservations").get()).toEqual({ n: 0 });
      expect(rows()).toEqual([{ key: keys[3], spent_tokens: 900, reserved_tokens: 50 }]);
      // Exactly the room left: held on all four rows at once.
      reserve.run("r-1:0:0", JSON.stringify(keys), limits(1000), 70, 5);
      expect(rows()).toEqual([
        { key: keys[1], spent_tokens: 0, reserved_tokens: 70 },
        { key: keys[2], spent_tokens: 0, reserved_tokens: 70 },
        { key: keys[0], spent_tokens: 0, reserved_tokens: 70 },
        { key: keys[3], spent_tokens: 900, reserved_tokens: 120 },
      ]);
      // The same id again holds nothing more, even past the limit; the ledger names the budget it refuses on.
      reserve.run("r-1:0:0", JSON.stringify(keys), limits(0), 70, 5);
      expect(rows()[3]).toEqual({ key: keys[3], spent_tokens: 900, reserved_tokens: 120 });
      const ledger = createSqliteBudgetLedger(store);
      const at = Date.UTC(2026, 11, 2);
      const outcome = await ledger.reserve({ reservationId: "r-2", at, amount: { tokens: 1, costMicros: 0 }, limits: [{ scope: "run", id: "r-1", tokens: 1e9 }, { scope: "tenant", id: "t-1", period: "month", tokens: 1000 }] });
      expect(outcome).toEqual({ ok: false, exceeded: { scope: "tenant", id: "t-1", period: "month", window: "2026-12", unit: "tokens", spent: 900, reserved: 120, limit: 1020, requested: 1 } });
      expect(rows()[0]).toEqual({ key: keys[1], spent_tokens: 0, reserved_tokens: 70 });
      // A finish moves the hold to spent on every row, once; the reservation records what it spent.
      expect(await ledger.settle("r-1:0:0", { tokens: 30, costMicros: 2 })).toBe(true);
      expect(await ledger.settle("r-1:0:0", { tokens: 30, costMicros: 2 })).toBe(false);
      expect(rows()).toEqual([
        { key: keys[1], spent_tokens: 30, reserved_tokens: 0 },
        { key: keys[2], spent_tokens: 30, reserved_tokens: 0 },
        { key: keys[0], spent_tokens: 30, reserved_tokens: 0 },
        { key: keys[3], spent_tokens: 930, reserved_tokens: 50 },
      ]);
      expect(sqlite.prepare("SELECT state, spent_tokens, spent_micros FROM budget_reservations WHERE id = 'r-1:0:0'").get()).toEqual({ state: "settled", spent_tokens: 30, spent_micros: 2 });
    });
  });
  it("BUD-1 a SQLite reserve refused by its statement is decided again under the write lock: room another host freed meanwhile is held", async () => {
    await withStoreDatabase("sh-budget-redecide-", async (store, file) => {
      const sqlite = store.client;
      // Another host: a connection of its own (openStoreFile would hand out this process's shared one, GOV-7).
      const client = new Database(file, { timeout: 10_000 });
      const other = sqliteStoreOn({ client, db: drizzle(client) }, storeTables());
      try {
        const limits = [{ scope: "tenant" as const, id: "t-1", tokens: 100 }];
        const at = Date.now();
        // The other host settles its hold between this reserve's statement and its second step.
        const otherLedger = createSqliteBudgetLedger(other);
        let between: (() => Promise<unknown>) | null = null;
        const injecting = new Proxy(sqlite, {
          get(target, name) {
            if (name !== "transaction") return Reflect.get(target, name, target);
            return (body: (...args: never[]) => unknown) => {
              const transaction = target.transaction(body);
              // A settle's statement runs synchronously as the call starts (the kernel awaits nothing before it).
              return { immediate: (...args: never[]) => (void between?.(), transaction.immediate(...args)) };
            };
          },
        });
        const ledger = createSqliteBudgetLedger({ ...store, client: injecting });
        expect(await otherLedger.reserve({ reservationId: "other", limits, amount: { tokens: 80, costMicros: 0 }, at })).toEqual({ ok: true });
        between = () => otherLedger.settle("other", { tokens: 10, costMicros: 0 });
        expect(await ledger.reserve({ reservationId: "mine", limits, amount: { tokens: 50, costMicros: 0 }, at })).toEqual({ ok: true });
        expect(await ledger.read(limits[0]!, at)).toEqual(expect.objectContaining({ spent: { tokens: 10, costMicros: 0 }, reserved: { tokens: 50, costMicros: 0 } }));
        // Still refused after the second look: the answer names the budget as it stands then.
        between = null;
        expect(await ledger.reserve({ reservationId: "again", limits, amount: { tokens: 41, costMicros: 0 }, at })).toEqual({ ok: false, exceeded: expect.objectContaining({ spent: 10, reserved: 50, limit: 100, requested: 41 }) });
      } finally {
        await other.close();
      }
    });
  });
  it("BUD-1 a SQLite store from before the single-statement ledger is migrated on open and keeps its spending, grants and open holds", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-budget-migrated-"));
    try {
      // The store as migrations 0000–0003 left it, with rows the five-statement ledger wrote.
      const old = join(directory, "migrations-0003");
      const folder = findStoreMigrationsFolder();
      cpSync(folder, old, { recursive: true, filter: (source) => [folder, join(folder, "meta")].includes(dirname(source)) || source === folder });
      mkdirSync(join(directory, "store"));
      const journalFile = join(old, "meta", "_journal.json");
      const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: Array<{ tag: string }> };
      writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.filter((entry) => entry.tag <= "0003") }));
      const before = openStoreFile({ file: join(directory, "store", "store.sqlite"), migrationsFolder: old });
      expect(before.client.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'budget_reserve'").get()).toEqual({ n: 0 });
      before.client.exec(`INSERT INTO budget_rows VALUES ('tenant:acme', 1000, 7000, 300, 2000, 50, 0);
        INSERT INTO budget_reservations VALUES ('old-settled', '["tenant:acme"]', 400, 3000, 'settled', 1), ('old-held', '["tenant:acme"]', 300, 2000, 'held', 2), ('grant:g-1', '["tenant:acme"]', 50, 0, 'granted', 3);`);
      before.client.close();

      const storage = createSqliteStorage({ directory: join(directory, "store") });
      try {
        const key = { scope: "tenant" as const, id: "acme" };
        expect(await storage.budgets.read(key, Date.now())).toEqual(expect.objectContaining({ spent: { tokens: 1000, costMicros: 7000 }, reserved: { tokens: 300, costMicros: 2000 }, granted: { tokens: 50, costMicros: 0 } }));
        // The hold taken before the upgrade settles through the new statement; known ids hold nothing more.
        expect(await storage.budgets.settle("old-held", { tokens: 120, costMicros: 900 })).toBe(true);
        const after = new Database(join(directory, "store", "store.sqlite"), { readonly: true });
        expect(after.prepare("SELECT id, state, spent_tokens, spent_micros FROM budget_reservations ORDER BY updated_at").all().slice(0, 3)).toEqual([
          { id: "old-settled", state: "settled", spent_tokens: null, spent_micros: null },
          { id: "grant:g-1", state: "granted", spent_tokens: null, spent_micros: null },
          { id: "old-held", state: "settled", spent_tokens: 120, spent_micros: 900 },
        ]);
        after.close();
        expect(await storage.budgets.reserve({ reservationId: "old-settled", limits: [{ ...key, tokens: 0 }], amount: { tokens: 5000, costMicros: 0 }, at: Date.now() })).toEqual({ ok: true });
        expect(await storage.budgets.extend({ grantId: "g-1", ...key, amount: { tokens: 50, costMicros: 0 }, at: Date.now() })).toBe(false);
        expect(await storage.budgets.read(key, Date.now())).toEqual(expect.objectContaining({ spent: { tokens: 1120, costMicros: 7900 }, reserved: { tokens: 0, costMicros: 0 } }));
        // The old spending and grant count against the limit: 1200 + 50 granted − 1120 spent = 130 left.
        const limits = [{ ...key, tokens: 1200 }];
        expect(await storage.budgets.reserve({ reservationId: "new-1", limits, amount: { tokens: 131, costMicros: 0 }, at: Date.now() })).toEqual({ ok: false, exceeded: expect.objectContaining({ spent: 1120, limit: 1250, requested: 131 }) });
        expect(await storage.budgets.reserve({ reservationId: "new-1", limits, amount: { tokens: 130, costMicros: 0 }, at: Date.now() })).toEqual({ ok: true });
      } finally {
        await storage.close();
      }
    } finally {
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
