import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { usageEntryId } from "../../src/domain/agent/ids.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import type { AgentBudgetOptions } from "../../src/domain/budget/budget-options.js";
import type { BudgetLedger } from "../../src/ports/budget-ledger.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import type { Storage } from "../../src/ports/storage.js";
import { counting, killAtSecondTickThenResume } from "./fixtures/budget-kill.js";
import { describePostgres } from "../fixtures/postgres.js";

// Every call reports 20 input and 30 output tokens (50).
const usage = { input: 20, output: 30, cacheRead: 0, cacheWrite: 0, total: 50 };
const tick = (n: number, spent = usage): OfflineStep => ({ toolCalls: [{ id: `tick_${n}`, name: "tick", arguments: {} }], usage: spent });
const ticks = (n: number): OfflineStep[] => [...Array.from({ length: n }, (_, i) => tick(i)), { text: "done", usage }];

type LedgerStorage = Storage & { budgets: BudgetLedger };

function withStorage(body: (storage: LedgerStorage) => Promise<void>): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "sh-budget-lease-"));
  const storage = createSqliteStorage({ directory });
  return body(storage).finally(async () => {
    await storage.close();
    rmSync(directory, { recursive: true, force: true });
  });
}

/** Runs `steps` with a `tick` tool that calls `onTick` (after the call that asked for it, before the next). */
async function run(storage: LedgerStorage, runId: string, steps: OfflineStep[] | ((request: { messages: unknown[] }) => OfflineStep), budget: AgentBudgetOptions, onTick: () => Promise<void> = async () => undefined) {
  let modelCalls = 0;
  const model = createOfflineModel({ steps: steps as OfflineStep[], chunkSize: 64 });
  const counted = { descriptor: model.descriptor, stream: (request: never, signal?: AbortSignal) => (modelCalls++, model.stream(request, signal)) };
  const tickTool = { name: "tick", label: "tick", description: "counts", parameters: Type.Object({}), async execute() {
    await onTick();
    return { content: [{ type: "text" as const, text: "ticked" }] };
  } };
  const node = createAgentNode({ models: counted, retryDelayMs: 0, maxSteps: 10_000, tools: ["tick"], extraTools: [tickTool], extraToolCatalog: [{ id: "tick", autoApprove: true }], compaction: false, budget });
  // A conversation per run: each run has a session of its own.
  const context = createNodeContext({ projectId: "lease", conversationId: runId, storage, runId });
  try {
    const { output } = await runStreamNode(node, { prompt: "go" }, context);
    return { output, modelCalls, code: null };
  } catch (error) {
    return { output: null, modelCalls, code: (error as { code?: string }).code ?? String(error) };
  }
}

const large = [{ scope: "run" as const, tokens: 1_000_000 }, { scope: "project" as const, tokens: 1_000_000 }];
const nothingHeld = { tokens: 0, costMicros: 0 };

/** BUD-2: ten calls on a lease of 8 — its ledger steps, what it holds, what it settles. */
async function tenCallsOnALease(storage: LedgerStorage): Promise<void> {
  const heldAtFirstTick: Record<string, number> = {};
  const at = (runId: string) => async () => void (heldAtFirstTick[runId] ??= (await storage.budgets.read({ scope: "run", id: runId }, Date.now())).reserved.tokens);
  const { ledger, calls } = counting(storage.budgets);
  const leased = await run(storage, "run-leased", ticks(9), { limits: large, maxOutputTokens: 100, ledger }, at("run-leased"));
  expect(leased.output?.errCode).toBe(0);
  expect(leased.modelCalls).toBe(10);
  // Call 0 opens the lease (releasing its own id, in the same step), calls 1–7 draw from it,
  // call 8 settles it with the next lease, call 9 draws from that, the run's end settles it.
  expect({ reserve: calls.reserve, finishAndReserve: calls.finishAndReserve, settle: calls.settle, release: calls.release }).toEqual({ reserve: undefined, finishAndReserve: 2, settle: 1, release: undefined });
  const alone = await run(storage, "run-alone", ticks(9), { limits: large, maxOutputTokens: 100, leaseCalls: 1 }, at("run-alone"));
  expect(alone.output?.errCode).toBe(0);
  expect(heldAtFirstTick["run-alone"]).toBeGreaterThan(100);
  expect(heldAtFirstTick["run-leased"]).toBe(8 * heldAtFirstTick["run-alone"]!);
  for (const runId of ["run-leased", "run-alone"]) expect(await storage.budgets.read({ scope: "run", id: runId }, Date.now())).toEqual(expect.objectContaining({ spent: { tokens: 500, costMicros: 0 }, reserved: nothingHeld }));
  expect(await storage.budgets.read({ scope: "project", id: "lease" }, Date.now())).toEqual(expect.objectContaining({ spent: { tokens: 1000, costMicros: 0 }, reserved: nothingHeld }));
}

/** BUD-2: a runaway loop near its cap stops where it stops with every call reserved alone. */
async function leaseNearALimit(storage: LedgerStorage): Promise<void> {
  // 1 000 tokens a call, the context about as large; a call's worst case is its input
  // estimate (1 000 × 1.25) plus 200 output tokens, and a lease of 2 (~2 900 tokens) is under 1 % of 300 000.
  const heavy = { input: 990, output: 10, cacheRead: 0, cacheWrite: 0, total: 1000 };
  const loop = (request: { messages: unknown[] }) => tick(request.messages.length, heavy);
  const cap = 300_000;
  const outcomes = [];
  for (const leaseCalls of [2, 1]) {
    const { ledger, calls } = counting(storage.budgets);
    const runId = `run-loop-${leaseCalls}`;
    const { code, modelCalls } = await run(storage, runId, loop, { limits: [{ scope: "run", tokens: cap }], maxOutputTokens: 200, leaseCalls, ledger });
    const state = await storage.budgets.read({ scope: "run", id: runId }, Date.now());
    outcomes.push({ code, modelCalls, spent: state.spent.tokens, reserved: state.reserved.tokens, steps: (calls.finishAndReserve ?? 0) + (calls.reserve ?? 0) });
  }
  const [leased, alone] = outcomes;
  expect(leased!.code).toBe("budget_exceeded");
  expect({ ...leased, steps: 0 }).toEqual({ ...alone, steps: 0 });
  expect(leased!.spent).toBeLessThanOrEqual(cap);
  expect(leased!.spent).toBeGreaterThan(cap - 3000);
  expect(leased!.reserved).toBe(0);
  expect(alone!.steps).toBeGreaterThanOrEqual(alone!.modelCalls);
  expect(leased!.steps).toBeLessThan(alone!.steps * 0.75);
}

describe("BUD-2 a lease: one reservation for several calls where every budget is large beside a call", () => {
  it("BUD-2 ten calls on a lease of 8 take two finishAndReserve steps and a settle; the lease holds exactly 8 times what a call reserved alone holds; spent is exactly the usage, nothing held", () => withStorage(tenCallsOnALease));

  it("BUD-2 a budget a lease would take more than 1 % of reserves each call alone (one finishAndReserve per call)", async () => {
    await withStorage(async (storage) => {
      const { ledger, calls } = counting(storage.budgets);
      // 8 worst cases of a call (8 × ~150 tokens) are more than 1 % of 100 000 tokens.
      const { output } = await run(storage, "run-small", ticks(2), { limits: [{ scope: "run", tokens: 100_000 }], maxOutputTokens: 100, ledger });
      expect(output?.errCode).toBe(0);
      expect({ reserve: calls.reserve, finishAndReserve: calls.finishAndReserve, settle: calls.settle }).toEqual({ reserve: undefined, finishAndReserve: 3, settle: 1 });
      expect(await storage.budgets.read({ scope: "run", id: "run-small" }, Date.now())).toEqual(expect.objectContaining({ spent: { tokens: 150, costMicros: 0 }, reserved: nothingHeld }));
    });
  });

  it("BUD-2 near a limit the lease gives way to reservations of one call: a runaway loop stops at the same call, with the same spend, as with leaseCalls 1 — at the cap, never over it — in far fewer ledger steps", () => withStorage(leaseNearALimit), 60_000);

  it("BUD-2 a failed and retried attempt draws from the same lease as the calls around it: six attempts take one lease step and its settle; spent is the five answers' usage (the failure reported none), nothing held", () =>
    withStorage(async (storage) => {
      const { ledger, calls } = counting(storage.budgets);
      let requests = 0;
      // The third request fails retryably (the offline model reports no usage for it); it is asked again.
      const steps = (request: { messages: unknown[] }): OfflineStep => {
        requests++;
        if (requests === 3) return { error: { message: "overloaded", kind: "recovery", status: 529, retryable: true } };
        const made = (request.messages as Array<{ role: string }>).filter((message) => message.role === "assistant").length;
        return made < 4 ? tick(made) : { text: "done", usage };
      };
      const { output, modelCalls } = await run(storage, "run-retried", steps, { limits: large, maxOutputTokens: 100, ledger });
      expect(output?.errCode).toBe(0);
      expect(modelCalls).toBe(6);
      expect({ reserve: calls.reserve, finishAndReserve: calls.finishAndReserve, settle: calls.settle, release: calls.release }).toEqual({ reserve: undefined, finishAndReserve: 1, settle: 1, release: undefined });
      expect(await storage.budgets.read({ scope: "run", id: "run-retried" }, Date.now())).toEqual(expect.objectContaining({ spent: { tokens: 250, costMicros: 0 }, reserved: nothingHeld }));
    }));

  it("BUD-2 a leaseCalls that is not a whole number of calls, 1 or more, fails the run with input_validation naming budget.leaseCalls, before any model call or ledger step", () =>
    withStorage(async (storage) => {
      for (const leaseCalls of [0, -2, 2.5, Number.NaN]) {
        const { ledger, calls } = counting(storage.budgets);
        const { code, modelCalls } = await run(storage, `run-bad-${String(leaseCalls)}`, ticks(1), { limits: large, maxOutputTokens: 100, leaseCalls, ledger });
        expect({ leaseCalls, code, modelCalls, steps: (calls.reserve ?? 0) + (calls.finishAndReserve ?? 0) }).toEqual({ leaseCalls, code: "input_validation", modelCalls: 0, steps: 0 });
      }
    }));

  it("BUD-2 a run's first reservation releases the call's other id, which a process killed before its first commit could leave held (its own id, or its lease id)", async () => {
    await withStorage(async (storage) => {
      for (const [runId, leaseCalls, orphan] of [["run-orphan-own", 8, ""], ["run-orphan-lease", 1, ":lease"]] as const) {
        const limits = [{ scope: "run" as const, id: runId, tokens: 1_000_000 }, { scope: "project" as const, id: "lease", tokens: 1_000_000 }];
        expect(await storage.budgets.reserve({ reservationId: `${usageEntryId(runId, 0, 0)}${orphan}`, limits, amount: { tokens: 777, costMicros: 0 }, at: Date.now() })).toEqual({ ok: true });
        const { output } = await run(storage, runId, ticks(2), { limits: large, maxOutputTokens: 100, leaseCalls });
        expect(output?.errCode).toBe(0);
        expect(await storage.budgets.read({ scope: "run", id: runId }, Date.now())).toEqual(expect.objectContaining({ spent: { tokens: 150, costMicros: 0 }, reserved: nothingHeld }));
      }
    });
  });
});

describePostgres("BUD-2 leases on PostgreSQL", (database) => {
  const onPostgres = async (body: (storage: LedgerStorage) => Promise<void>) => {
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.freshSchema() });
    try {
      await body(storage as LedgerStorage);
    } finally {
      await storage.close();
    }
  };
  it("BUD-2 on PostgreSQL ten calls on a lease of 8 take two finishAndReserve steps and a settle, hold 8 times one call, and settle exactly", () => onPostgres(tenCallsOnALease), 60_000);
  it("BUD-2 on PostgreSQL a runaway loop on leases stops at the same call, with the same spend, as with leaseCalls 1, never over the cap", () => onPostgres(leaseNearALimit), 120_000);
});

describe("BUD-2 a host killed while its calls draw from a lease", () => {
  it("BUD-2 SIGKILL during a tool call leaves the lease held; the resumed run settles it on exactly the usage committed under it: spent is exactly the three calls, nothing held", async () => {
    // Calls 0 and 1 draw from one lease (call 0 opened it); the second tick hangs.
    const { killed, resumed, ticks, final } = await killAtSecondTickThenResume("leased", "conv-leased", { limits: [{ scope: "conversation", tokens: 1_000_000 }], maxOutputTokens: 100 });
    // Nothing settled yet: the lease (8 worst cases, more than the 100 the two calls spent) is held.
    expect(killed.spent.tokens).toBe(0);
    expect(killed.reserved.tokens).toBeGreaterThan(8 * 100);
    expect(resumed).toMatchObject({ runId: "leased-0", status: "completed", usage: 150 });
    expect(ticks).toBe(1);
    expect(final).toEqual(expect.objectContaining({ spent: { tokens: 150, costMicros: 0 }, reserved: nothingHeld }));
  }, 120_000);
});
