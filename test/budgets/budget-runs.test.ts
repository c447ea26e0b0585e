import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { describePostgres, type PostgresTestDatabase } from "../fixtures/postgres.js";

const HOST = join(import.meta.dirname, "fixtures", "budget-host.ts");

interface RunLine {
  runId: string;
  status: "completed" | "stopped";
  code?: string;
  requestId?: string;
  usage: number | null;
  session: { budgets: Array<{ scope: string; id: string; spent: { tokens: number; costUsd: number }; remaining: { tokens: number | null; costUsd: number | null } }> } | null;
  error: { scope: string; id: string; unit: string; spent: number; limit: number; reserved: number; requested: number } | null;
}

/** Runs the budget host fixture as a real process; resolves its run lines. */
function host(env: Record<string, string>): Promise<RunLine[]> {
  // Bundled once per file (test/fixtures/bundled-fixture.ts): every step below starts a fresh
  // process, which through tsx cost ~3 s of CPU each.
  const file = bundledFixture(HOST);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(out.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as RunLine)) : reject(new Error(`budget host exited ${code}`))));
  });
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0);
const PRICE = { input: 1, output: 2 };
// Every call of the fixture reports input 20 and output 30 tokens: 50 tokens, 80 micro-dollars.
const CALL_TOKENS = 50;
const CALL_MICROS = 20 * PRICE.input + 30 * PRICE.output;

type Store = { env: Record<string, string>; read: (scope: "run" | "tenant" | "conversation", id: string) => Promise<{ spent: { tokens: number; costMicros: number }; reserved: { tokens: number; costMicros: number } }>; close: () => Promise<void> };

function sqliteStore(): Store {
  const directory = mkdtempSync(join(tmpdir(), "sh-budget-runs-"));
  const storage = createSqliteStorage({ directory });
  return { env: { STORE_SQLITE: directory }, read: (scope, id) => storage.budgets.read({ scope, id }, Date.now()), close: async () => (await storage.close(), rmSync(directory, { recursive: true, force: true })) };
}

async function postgresStore(database: PostgresTestDatabase): Promise<Store> {
  const schema = database.freshSchema();
  const storage = await createPostgresStorage({ connectionString: database.url, schema });
  return { env: { STORE_POSTGRES: database.url, STORE_SCHEMA: schema }, read: (scope, id) => storage.budgets!.read({ scope, id }, Date.now()), close: () => storage.close() };
}

/** BUD-3: a runaway loop (the model always calls a tool) stops at the run's token cap, every time. */
async function runawayStopsAtCap(open: () => Store | Promise<Store>): Promise<void> {
  const store = await open();
  try {
    // One host process runs the four cases one after the other (ARCH-12: one process start, not four).
    const caps = [400, 1000, 1750];
    const budgets = [...caps.map((cap) => ({ prefix: `loop-${cap}`, budget: { limits: [{ scope: "run", tokens: cap }], maxOutputTokens: 100 } })), { prefix: "calls", budget: { maxToolCalls: 5 } }];
    const runs = await host({ ...store.env, SCRIPT: "loop", BUDGETS: JSON.stringify(budgets) });
    expect(runs.map((run) => run.runId)).toEqual(budgets.map(({ prefix }) => `${prefix}-0`));
    for (const [index, cap] of caps.entries()) {
      const run = runs[index];
      expect(run).toMatchObject({ status: "stopped", code: "budget_exceeded" });
      const spent = (await store.read("run", run!.runId)).spent.tokens;
      expect(spent).toBeLessThanOrEqual(cap);
      // Stopped at the cap: the next call's worst case would not have fit, and nothing is left held.
      expect(run!.error).toMatchObject({ scope: "run", id: run!.runId, unit: "tokens", spent, limit: cap, reserved: 0 });
      expect(spent + run!.error!.requested).toBeGreaterThan(cap);
      expect(spent % CALL_TOKENS).toBe(0);
      expect((await store.read("run", run!.runId)).reserved.tokens).toBe(0);
    }
    const limited = runs[caps.length];
    expect(limited).toMatchObject({ status: "stopped", code: "budget_exceeded" });
    expect(limited!.usage).toBe(6 * CALL_TOKENS);
  } finally {
    await store.close();
  }
}

describe("BUD-2/BUD-3 budgets of agent runs on SQLite", () => {
  it("BUD-3 a runaway tool loop stops at the cap every time on SQLite (and at maxToolCalls)", () => runawayStopsAtCap(sqliteStore), 120_000);

  it("BUD-3 a budget pause approved from a fresh process resumes the same run once, without redoing committed work", async () => {
    const store = sqliteStore();
    const ticks = join(store.env.STORE_SQLITE!, "ticks");
    const calls = join(store.env.STORE_SQLITE!, "calls");
    const env = { ...store.env, SCRIPT: "steps", CONVERSATION: "conv-pause", PREFIX: "paused", TICKS: ticks, CALLS: calls, BUDGET: JSON.stringify({ limits: [{ scope: "conversation", tokens: 220 }], maxOutputTokens: 100, onLimit: "pause", extendBy: { tokens: 1000 } }) };
    try {
      const [paused] = await host(env);
      expect(paused).toMatchObject({ runId: "paused-0", status: "stopped", code: "user_input_required" });
      expect(paused!.requestId).toMatch(/^budget:.*:conversation:conv-pause:tokens$/);
      expect([lines(ticks), lines(calls)]).toEqual([2, 2]);
      expect(paused!.session!.budgets[0]).toMatchObject({ scope: "conversation", id: "conv-pause", spent: { tokens: 100 }, remaining: { tokens: 120 } });
      // Not answered: a fresh process pauses again at the same request, calling nothing.
      const [again] = await host(env);
      expect(again).toMatchObject({ status: "stopped", code: "user_input_required", requestId: paused!.requestId });
      expect([lines(ticks), lines(calls)]).toEqual([2, 2]);
      // Approved from a fresh process: the same run id resumes, the two ticks are not redone.
      const [resumed] = await host({ ...env, ANSWERS: JSON.stringify({ [paused!.requestId!]: { approve: true } }) });
      expect(resumed).toMatchObject({ runId: "paused-0", status: "completed", usage: 3 * CALL_TOKENS });
      expect([lines(ticks), lines(calls)]).toEqual([2, 3]);
      expect(resumed!.session!.budgets[0]).toMatchObject({ spent: { tokens: 150 }, remaining: { tokens: 1070 } });
      // Declined from a fresh process: the run stops with budget_exceeded instead, calling nothing more.
      const declineEnv = { ...env, PREFIX: "declined", CONVERSATION: "conv-decline" };
      const [asked] = await host(declineEnv);
      expect(asked).toMatchObject({ runId: "declined-0", code: "user_input_required" });
      const [declined] = await host({ ...declineEnv, ANSWERS: JSON.stringify({ [asked!.requestId!]: { approve: false } }) });
      expect(declined).toMatchObject({ runId: "declined-0", status: "stopped", code: "budget_exceeded", error: { scope: "conversation", id: "conv-decline", spent: 100, limit: 220 } });
      expect([lines(ticks), lines(calls)]).toEqual([4, 5]);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("BUD-2 a budget stop happens before the call: a spent run budget makes no model call", async () => {
    const store = sqliteStore();
    const calls = join(store.env.STORE_SQLITE!, "calls");
    try {
      const [run] = await host({ ...store.env, SCRIPT: "answer", CALLS: calls, BUDGET: JSON.stringify({ limits: [{ scope: "tenant", tokens: 10 }], tenantId: "t-small", maxOutputTokens: 100 }) });
      expect(run).toMatchObject({ status: "stopped", code: "budget_exceeded", error: { scope: "tenant", id: "t-small", spent: 0, limit: 10 } });
      expect(lines(calls)).toBe(0);
    } finally {
      await store.close();
    }
  }, 60_000);
});

describePostgres("BUD-2/BUD-3 budgets of agent runs on PostgreSQL", (database) => {
  it("BUD-2 two host processes on one PostgreSQL racing 200 runs against one tenant budget settle no more than the cap", async () => {
    const store = await postgresStore(database);
    const capMicros = 4000;
    const budget = JSON.stringify({ limits: [{ scope: "tenant", costUsd: capMicros / 1_000_000 }], tenantId: "acme", price: PRICE, maxOutputTokens: 100 });
    try {
      const results = (await Promise.all(["a", "b"].map((prefix) => host({ ...store.env, SCRIPT: "answer", RUNS: "100", CONCURRENCY: "10", CONVERSATION: "per-run", PREFIX: prefix, BUDGET: budget })))).flat();
      expect(results).toHaveLength(200);
      const completed = results.filter((run) => run.status === "completed");
      const refused = results.filter((run) => run.code === "budget_exceeded");
      expect(completed.length + refused.length).toBe(200);
      expect(refused.length).toBeGreaterThan(0);
      const state = await store.read("tenant", "acme");
      expect(state.spent.costMicros).toBeLessThanOrEqual(capMicros);
      // Every completed run settled exactly its one call; nothing is left held.
      expect(state.spent).toEqual({ tokens: completed.length * CALL_TOKENS, costMicros: completed.length * CALL_MICROS });
      expect(state.reserved).toEqual({ tokens: 0, costMicros: 0 });
      expect(refused[0]!.error).toMatchObject({ scope: "tenant", id: "acme", unit: "cost", limit: capMicros });
    } finally {
      await store.close();
    }
  }, 240_000);

  it("BUD-3 a runaway tool loop stops at the cap every time on PostgreSQL", () => runawayStopsAtCap(() => postgresStore(database)), 120_000);
});
