// TEN-5: the budget ledger never trusts the usage a provider reports nor a model's price. A
// property test (fast-check) runs real agent runs — an offline model whose every response reports
// arbitrary usage (absent, negative, fractional, NaN, infinite, huge, zero, or sane), at arbitrary
// prices — against the ledger of a real store (memory, SQLite, PostgreSQL) and checks, after every
// run: the tenant's spend never decreases, no call is free (each counts at least its sane report
// or its reserved output), nothing is left held, and a bad price fails the run with
// `input_validation` before any model call. Each finding of the issue is a regression case.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { Type } from "@sinclair/typebox";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createMemoryBudgetLedger } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import type { BudgetLedger } from "../../src/ports/budget-ledger.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import type { ModelProvider } from "../../src/ports/model-provider.js";
import type { Storage } from "../../src/ports/storage.js";
import type { TokenCounts } from "../../src/ports/token-usage.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { describePostgres } from "../fixtures/postgres.js";

/** Output tokens every call reserves: an untrusted report counts at least this. */
const MAX_OUTPUT = 100;
const KINDS = ["input", "output", "cacheRead", "cacheWrite"] as const;

/** One token count as a provider might report it. */
const count = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 5000 }) },
  fc.constant(undefined),
  fc.integer({ min: -5000, max: -1 }),
  fc.double({ min: 0.01, max: 5000, noNaN: true }).filter((n) => !Number.isInteger(n)),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2 ** 60, 0),
  fc.constantFrom("12", null, {}),
);
/** A usage report: a record of counts, or nothing at all. */
const usage = fc.oneof({ weight: 6, arbitrary: fc.record({ input: count, output: count, cacheRead: count, cacheWrite: count, total: count }) }, fc.constantFrom(undefined, null, 0));
const priceNumber = fc.oneof({ weight: 5, arbitrary: fc.double({ min: 0, max: 100, noNaN: true }) }, fc.double({ min: -100, max: -0.001, noNaN: true }), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 1e12));
const price = fc.option(fc.record({ input: priceNumber, output: priceNumber, cacheRead: fc.option(priceNumber, { nil: undefined }), cacheWrite: fc.option(priceNumber, { nil: undefined }) }, { requiredKeys: ["input", "output"] }), { nil: undefined });
const run = fc.record({ calls: fc.array(usage, { minLength: 1, maxLength: 4 }), price, leaseCalls: fc.constantFrom(1, 8) });

const sane = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= 100_000_000;
/** The tokens a sane, non-empty report counts; null for a report the ledger must not trust. */
function trustedSum(report: unknown): number | null {
  const record = (typeof report === "object" && report !== null ? report : {}) as Record<string, unknown>;
  if (!KINDS.every((kind) => sane(record[kind]))) return null;
  const sum = KINDS.reduce((total, kind) => total + (record[kind] as number), 0);
  return sum === 0 ? null : sum;
}
const validPrice = (given: Record<string, number | undefined> | undefined) => given === undefined || Object.values(given).every((n) => n === undefined || (Number.isFinite(n) && n >= 0 && n <= 1_000_000));

/** An offline model whose responses report `reports` (one per call, in order) as their usage. */
function reporting(reports: unknown[], calls: { made: number }): ModelProvider {
  // `calls.made` counts this call already when the script is asked: tool calls until the last one answers.
  const steps = (): OfflineStep => (calls.made < reports.length ? { toolCalls: [{ id: `tick_${calls.made}`, name: "tick", arguments: {} }] } : { text: "ok" });
  const offline = createOfflineModel({ steps, chunkSize: 64 });
  return {
    descriptor: { ...offline.descriptor, provider: "flaky-provider" },
    async *stream(request, signal) {
      const report = reports[calls.made++];
      for await (const event of offline.stream(request, signal)) yield event.type === "done" ? { ...event, response: { ...event.response, usage: report as TokenCounts } } : event;
    },
  };
}

const tickTool = { name: "tick", label: "tick", description: "counts", parameters: Type.Object({}), execute: async () => ({ content: [{ type: "text" as const, text: "ticked" }] }) };

/** Runs one agent run reporting `reports`, as tenant `tenant`; resolves how it ended, the calls made and the warnings logged. */
async function agentRun(storage: Storage, tenant: string, runId: string, reports: unknown[], given: Record<string, number | undefined> | undefined, leaseCalls: number) {
  const calls = { made: 0 };
  const warnings: string[] = [];
  const log = { debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
  const node = createAgentNode({
    models: reporting(reports, calls), retryDelayMs: 0, tools: ["tick"], extraTools: [tickTool], extraToolCatalog: [{ id: "tick", autoApprove: true }], compaction: false,
    budget: { limits: [{ scope: "tenant", tokens: 1e12, ...(given === undefined ? {} : { costUsd: 1e6 }) }], tenantId: tenant, maxOutputTokens: MAX_OUTPUT, leaseCalls, ...(given === undefined ? {} : { price: given as never }) },
  });
  const context = createNodeContext({ projectId: "untrusted-usage", storage, runId, conversationId: runId, log });
  try {
    await runStreamNode(node, { prompt: "go" }, context);
    return { code: null, calls: calls.made, warnings };
  } catch (error) {
    return { code: isSteamharnessError(error) ? error.code : `untyped: ${String(error)}`, field: isSteamharnessError(error) ? error.field : undefined, calls: calls.made, warnings };
  }
}

/** The property over one store: spend never decreases, no call is free, no hold survives a run, bad prices stop before any call. */
async function ledgerHolds(storage: Storage, numRuns: number): Promise<void> {
  const tenant = `t-${Math.random().toString(36).slice(2)}`;
  let runs = 0;
  let before = { tokens: 0, costMicros: 0 };
  await fc.assert(
    fc.asyncProperty(run, async ({ calls, price: given, leaseCalls }) => {
      const ended = await agentRun(storage, tenant, `run-${runs++}`, calls, given, leaseCalls);
      const state = await storage.budgets!.read({ scope: "tenant", id: tenant }, Date.now());
      expect(state.reserved).toEqual({ tokens: 0, costMicros: 0 });
      expect(state.spent.tokens).toBeGreaterThanOrEqual(before.tokens);
      expect(state.spent.costMicros).toBeGreaterThanOrEqual(before.costMicros);
      if (!validPrice(given)) {
        expect(ended.code).toBe("input_validation");
        expect(ended.calls).toBe(0);
        expect(state.spent).toEqual(before);
      } else {
        expect(ended).toMatchObject({ code: null, calls: calls.length });
        // No call is free: a trusted report counts exactly, an untrusted one at least the output it reserved.
        expect(state.spent.tokens - before.tokens).toBeGreaterThanOrEqual(calls.reduce((sum: number, report) => sum + (trustedSum(report) ?? MAX_OUTPUT), 0));
        expect(ended.warnings).toHaveLength(calls.filter((report) => trustedSum(report) === null).length);
        for (const warning of ended.warnings) expect(warning).toMatch(/provider flaky-provider reported unusable usage/);
      }
      before = state.spent;
    }),
    { numRuns },
  );
}

describe("TEN-5 the ledger against arbitrary provider usage and prices", () => {
  it("TEN-5: on memory, spend never decreases, no call is free, zero holds after every run, bad prices stop before any call (fast-check)", () => ledgerHolds(new MemoryStorage(), 200), 120_000);

  it("TEN-5: on SQLite, spend never decreases, no call is free, zero holds after every run, bad prices stop before any call (fast-check)", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-untrusted-usage-"));
    const storage = createSqliteStorage({ directory });
    try {
      await ledgerHolds(storage, 100);
    } finally {
      await storage.close();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("TEN-5 regressions: each finding", () => {
  const cases: Array<[string, unknown]> = [
    ["zero usage", { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }],
    ["negative usage", { input: -500, output: -20, cacheRead: 0, cacheWrite: 0, total: -520 }],
    ["missing usage", undefined],
    ["NaN usage", { input: Number.NaN, output: 5, cacheRead: 0, cacheWrite: 0, total: Number.NaN }],
    ["fractional usage", { input: 10.5, output: 3, cacheRead: 0, cacheWrite: 0, total: 13.5 }],
  ];
  for (const [what, report] of cases) {
    it(`TEN-5: ${what} reported by a provider settles at the call's reserved worst case, with a warning naming the provider; the run completes and nothing stays held`, async () => {
      const storage = new MemoryStorage();
      const ended = await agentRun(storage, "acme", "run-1", [report], { input: 1, output: 2 }, 8);
      expect(ended).toMatchObject({ code: null, calls: 1 });
      expect(ended.warnings).toHaveLength(1);
      expect(ended.warnings[0]).toMatch(/provider flaky-provider reported unusable usage for model .*the call counts as its reserved worst case/);
      const state = await storage.budgets!.read({ scope: "tenant", id: "acme" }, Date.now());
      expect(state.reserved).toEqual({ tokens: 0, costMicros: 0 });
      // The worst case: the estimated input and the whole output limit, at the prices.
      expect(state.spent.tokens).toBeGreaterThan(MAX_OUTPUT);
      expect(state.spent.costMicros).toBe(state.spent.tokens - MAX_OUTPUT + 2 * MAX_OUTPUT);
    });
  }

  it("TEN-5: a run whose consumer stops reading while the model streams leaves no hold (the call is released)", async () => {
    const storage = new MemoryStorage();
    const offline = createOfflineModel({ steps: () => ({ text: "a long answer ".repeat(50), usage: { input: 10, output: 10 } }), chunkSize: 4 });
    const node = createAgentNode({ models: offline, retryDelayMs: 0, compaction: false, budget: { limits: [{ scope: "tenant", tokens: 1e9 }], tenantId: "acme", maxOutputTokens: MAX_OUTPUT, leaseCalls: 1 } });
    const context = createNodeContext({ projectId: "untrusted-usage", storage, runId: "run-cut", conversationId: "run-cut" });
    let seen = 0;
    for await (const chunk of node.stream({ prompt: "go" }, context)) {
      if (chunk.type === "delta" && ++seen === 3) break;
    }
    expect(seen).toBe(3);
    const state = await storage.budgets!.read({ scope: "tenant", id: "acme" }, Date.now());
    expect(state.reserved).toEqual({ tokens: 0, costMicros: 0 });
  });

  it("TEN-5: a settle the ledger fails releases the hold and ends the run with a typed storage_failure, never an untyped error", async () => {
    const inner = createMemoryBudgetLedger();
    // A host's ledger whose settle faults (a full disk, a dropped connection); no finishAndReserve, so every call settles alone.
    const ledger: BudgetLedger = { reserve: (r) => inner.reserve(r), release: (id) => inner.release(id), read: (k, at) => inner.read(k, at), extend: (g) => inner.extend(g), settle: async () => Promise.reject(new Error("disk full")) };
    const node = createAgentNode({ models: createOfflineModel({ steps: () => ({ text: "ok", usage: { input: 10, output: 10 } }) }), retryDelayMs: 0, compaction: false, budget: { ledger, limits: [{ scope: "tenant", tokens: 1e9 }], tenantId: "acme", maxOutputTokens: MAX_OUTPUT } });
    const error = await runStreamNode(node, { prompt: "go" }, createNodeContext({ projectId: "untrusted-usage", storage: new MemoryStorage(), runId: "run-fault" })).then(() => null, (caught: unknown) => caught);
    expect(isSteamharnessError(error, "storage_failure")).toBe(true);
    expect(String((error as Error).message)).toMatch(/\[steamharness\] \[budget\] the budget ledger failed: disk full/);
    expect((await inner.read({ scope: "tenant", id: "acme" }, Date.now())).reserved).toEqual({ tokens: 0, costMicros: 0 });
  });

  it("TEN-5: a negative price fails the run with input_validation naming the field, before any model call and without a hold", async () => {
    const storage = new MemoryStorage();
    const ended = await agentRun(storage, "acme", "run-1", [{ input: 10, output: 10, cacheRead: 0, cacheWrite: 0, total: 20 }], { input: -3, output: 15 }, 8);
    expect(ended).toMatchObject({ code: "input_validation", field: "budget.price.input", calls: 0 });
    const state = await storage.budgets!.read({ scope: "tenant", id: "acme" }, Date.now());
    expect(state).toMatchObject({ spent: { tokens: 0, costMicros: 0 }, reserved: { tokens: 0, costMicros: 0 } });
  });
});

describePostgres("TEN-5 the ledger against arbitrary provider usage and prices on PostgreSQL", (database) => {
  it("TEN-5: on PostgreSQL, spend never decreases, no call is free, zero holds after every run, bad prices stop before any call (fast-check)", async () => {
    const storage = await createPostgresStorage({ connectionString: database.url, schema: database.freshSchema() });
    try {
      await ledgerHolds(storage, 50);
    } finally {
      await storage.close();
    }
  }, 240_000);
});
