// BUD-5: a tenant budget that names no tenant takes the run context's tenantId (what
// `steamharness mcp --http` sets from the caller's verified identity); without either it is a
// clear input_validation error, before any model call.
import { describe, expect, it } from "@jest/globals";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";

const usage = { input: 20, output: 30, cacheRead: 0, cacheWrite: 0, total: 50 };

function tenantNode(tenantId?: string) {
  const model = createOfflineModel({ steps: () => ({ text: "ok", usage }) });
  const node = createAgentNode({ models: model, compaction: false, budget: { limits: [{ scope: "tenant", tokens: 100_000 }], maxOutputTokens: 100, ...(tenantId ? { tenantId } : {}) } });
  return { node, model };
}

describe("BUD-5 tenant budgets take the context's tenant", () => {
  it("BUD-5 a tenant budget without tenantId is charged to NodeContext.tenantId", async () => {
    const storage = new MemoryStorage();
    const { node } = tenantNode();
    await runStreamNode(node, { prompt: "go" }, createNodeContext({ projectId: "p", storage, runId: "run-a", tenantId: "acme" }));
    expect((await storage.budgets.read({ scope: "tenant", id: "acme" }, Date.now())).spent.tokens).toBe(50);
  });

  it("BUD-5 the budget's own tenantId wins over the context's", async () => {
    const storage = new MemoryStorage();
    const { node } = tenantNode("named");
    await runStreamNode(node, { prompt: "go" }, createNodeContext({ projectId: "p", storage, runId: "run-b", tenantId: "acme" }));
    expect((await storage.budgets.read({ scope: "tenant", id: "named" }, Date.now())).spent.tokens).toBe(50);
    expect((await storage.budgets.read({ scope: "tenant", id: "acme" }, Date.now())).spent.tokens).toBe(0);
  });

  it("BUD-5 neither: input_validation naming budget.tenantId, and no model call", async () => {
    const { node, model } = tenantNode();
    const error = await runStreamNode(node, { prompt: "go" }, createNodeContext({ projectId: "p", storage: new MemoryStorage(), runId: "run-c" })).catch((e) => e);
    expect(error).toMatchObject({ code: "input_validation", field: "budget.tenantId" });
    expect(model.calls).toHaveLength(0);
  });
});
