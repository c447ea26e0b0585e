import { createAgentNode } from "../../src/agent/create-agent-node.js";
import { readExecutionHistory } from "../../src/agent/execution-history.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { runProjectCapabilityAction } from "../../src/capabilities/project-capabilities.js";
import { harness } from "./helpers.js";

describe("node execution history (AG-3 historyLimit, issue 6 item 9)", () => {
  it("SES-1 historyLimit bounds the node's execution history to the newest runs", async () => {
    const h = harness();
    const node = createAgentNode({ models: createOfflineModel({ steps: (request) => ({ text: `answer ${request.messages.length}` }) }), workdir: h.workdir, historyLimit: 3 });
    for (let i = 1; i <= 5; i++) await runStreamNode(node, { prompt: `question ${i}` }, h.context(`run-${i}`, { conversationId: "c1" }));
    const history = await readExecutionHistory(h.context("any", { conversationId: "c1" }));
    expect(history.map((entry) => [entry.runId, entry.status, entry.prompt])).toEqual([
      ["run-3", "completed", "question 3"],
      ["run-4", "completed", "question 4"],
      ["run-5", "completed", "question 5"],
    ]);
  });

  it("SES-3 re-sending a run id replaces its entry instead of adding one; a pause is recorded as waiting", async () => {
    const h = harness();
    const model = createOfflineModel({ steps: [{ toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "x" } }] }, { text: "written" }] });
    const node = createAgentNode({ models: model, workdir: h.workdir, permissionPolicy: "ask" });
    const paused = await runStreamNode(node, { prompt: "write a.txt" }, h.context("run-1", { conversationId: "c1" })).catch((e) => e);
    expect(paused.code).toBe("user_input_required");
    expect((await readExecutionHistory(h.context("x", { conversationId: "c1" }))).map((e) => e.status)).toEqual(["waiting"]);
    h.permissions.resolve(paused.requestId, { outcome: "approved" });
    await runStreamNode(node, { prompt: "write a.txt" }, h.context("run-1", { conversationId: "c1" }));
    await runStreamNode(node, { prompt: "write a.txt" }, h.context("run-1", { conversationId: "c1" }));
    const history = await readExecutionHistory(h.context("x", { conversationId: "c1" }));
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ runId: "run-1", status: "completed", toolCallCount: 1 });
  });

  it("CAP-5 the history key is runtime state the KV capability refuses to overwrite", async () => {
    const h = harness();
    const context = h.context("run-1", { conversationId: "c1" });
    await expect(runProjectCapabilityAction("workflow-kv_kv_store", context, { action: "set", scope: "conversation", key: "agent.history.agent", value: [] })).rejects.toMatchObject({ code: "input_validation" });
  });

  it("historyLimit must be a positive integer", () => {
    expect(() => createAgentNode({ historyLimit: 0 })).toThrow(/historyLimit must be an integer/);
    expect(() => createAgentNode({ historyLimit: 2.5 })).toThrow(/historyLimit must be an integer/);
  });
});
