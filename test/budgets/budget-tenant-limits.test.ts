// BUD-4: the host's limits on a run's tenant (`NodeContext.tenantLimits`, what `mcp --http --keys`
// workers set from the API key) are reserved in the host's own ledger next to the agent's own
// budgets: a refusal there stops the run before the call and leaves nothing held in either
// ledger; the host's cap is never paused for approval; replayed calls are not charged to the
// tenant's token window again. Real agent runs on the offline model, memory ledgers.
import { describe, expect, it } from "@jest/globals";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import type { NodeTenantLimits } from "../../src/domain/node-context.js";
import type { AgentBudgetOptions } from "../../src/domain/budget/budget-options.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";

const usage = { input: 20, output: 30, cacheRead: 0, cacheWrite: 0, total: 50 };
const now = () => Date.now();

function setUp(limits: Omit<NodeTenantLimits, "ledger" | "tenantId">, budget: AgentBudgetOptions = { maxOutputTokens: 100 }) {
  const storage = new MemoryStorage();
  const host = new MemoryStorage();
  const charged: number[] = [];
  const model = createOfflineModel({ steps: () => ({ text: "ok", usage }) });
  const node = createAgentNode({ models: model, compaction: false, budget });
  const tenantLimits: NodeTenantLimits = { tenantId: "acme", ledger: host.budgets, onTokens: async (tokens) => void charged.push(tokens), ...limits };
  const context = { ...createNodeContext({ projectId: "p", storage, runId: "run-1", conversationId: "run-1", tenantId: "acme" }), tenantLimits };
  return { storage, host, charged, model, node, context };
}

describe("BUD-4 NodeContext.tenantLimits: the host's tenant cap inside agent runs", () => {
  it("BUD-4 every model call reserves the tenant budget in the host's ledger; at the cap the run stops before the call (budget_exceeded) even with no budget of its own", async () => {
    const { host, model, node, context } = setUp({ budget: { tokens: 5000 } });
    let error: unknown;
    for (let i = 0; i < 200 && !error; i += 1) await runStreamNode(node, { prompt: "go", runId: `run-1-${i}` }, context).catch((e: unknown) => (error = e));
    expect(error).toMatchObject({ code: "budget_exceeded", data: { scope: "tenant", id: "acme", unit: "tokens", limit: 5000 } });
    const state = await host.budgets.read({ scope: "tenant", id: "acme" }, now());
    expect(state.spent.tokens).toBe(model.calls.length * 50);
    expect(state.spent.tokens).toBeLessThanOrEqual(5000);
    expect(state.reserved.tokens).toBe(0);
    expect(model.calls.length).toBeGreaterThan(5);
  });

  it("BUD-4 a refusal in the host's ledger releases the agent's own hold; the host's cap is not paused for approval", async () => {
    const { storage, model, node, context } = setUp({ budget: { tokens: 100 } }, { maxOutputTokens: 100, onLimit: "pause", limits: [{ scope: "run", tokens: 100_000 }] });
    const error = await runStreamNode(node, { prompt: "go" }, context).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "budget_exceeded", data: { scope: "tenant", id: "acme" } });
    expect(model.calls).toHaveLength(0);
    const own = await storage.budgets.read({ scope: "run", id: "run-1" }, now());
    expect(own.reserved.tokens).toBe(0);
    expect(own.spent.tokens).toBe(0);
  });

  it("BUD-4 onTokens is told each call's settled tokens once: a replayed run (same run id) tells nothing again", async () => {
    const { charged, model, node, context } = setUp({});
    await runStreamNode(node, { prompt: "go" }, context);
    await runStreamNode(node, { prompt: "go" }, context);
    await runStreamNode(node, { prompt: "go", runId: "run-2" }, context);
    expect(model.calls).toHaveLength(2);
    expect(charged).toEqual([50, 50]);
  });

  it("BUD-4 the agent's own ledger being the host's ledger: one reservation holds both budgets", async () => {
    const storage = new MemoryStorage();
    const model = createOfflineModel({ steps: () => ({ text: "ok", usage }) });
    const node = createAgentNode({ models: model, compaction: false, budget: { maxOutputTokens: 100, limits: [{ scope: "project", tokens: 100_000 }] } });
    const context = { ...createNodeContext({ projectId: "p", storage, runId: "run-1" }), tenantLimits: { tenantId: "acme", ledger: storage.budgets, budget: { tokens: 100_000 } } };
    await runStreamNode(node, { prompt: "go" }, context);
    expect((await storage.budgets.read({ scope: "tenant", id: "acme" }, now())).spent.tokens).toBe(50);
    expect((await storage.budgets.read({ scope: "project", id: "p" }, now())).spent.tokens).toBe(50);
  });
});
