// BUD-3 through the gateway: a run paused at its budget looks to an OpenAI client like any paused
// run — Responses `status: "incomplete"` with an `mcp_approval_request` named `approve_budget`
// (Chat Completions: a tool call `approve_budget`) whose arguments say what was spent and the
// limit; approving it extends the budget and the same run goes on without redoing its tool calls.
// Real gateway on 127.0.0.1, the official `openai` client, the real agent on the offline model.
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import type { OfflineStep } from "../../src/testing/offline-model.js";
import { gatewayWith, MODEL } from "./helpers.js";

// Each call reports its whole output limit (3000) and 20 input tokens: 3020 tokens.
const usage = { input: 20, output: 3000 };
const STEPS: OfflineStep[] = [
  { text: "Ticking.", toolCalls: [{ id: "tick_0", name: "tick", arguments: {} }], usage },
  { toolCalls: [{ id: "tick_1", name: "tick", arguments: {} }], usage },
  { text: "Done ticking.", usage },
];
// A call's worst case is the model's output limit plus the input estimate (≈ 6800 tokens for the
// second call here, the gateway's agent sending its tool specs): two calls fit a run budget of
// 11000 tokens (3020 + worst case), the third does not (6040 + worst case).
const budget = { limits: [{ scope: "run" as const, tokens: 11_000 }], maxOutputTokens: 3000, onLimit: "pause" as const, extendBy: { tokens: 5000 } };

function ticking(extendBy = budget.extendBy.tokens) {
  const counter = { ticks: 0 };
  const tick: AgentTool = {
    name: "tick", label: "Tick", description: "counts", parameters: Type.Object({}),
    async execute() {
      counter.ticks++;
      return { content: [{ type: "text", text: "ticked" }] };
    },
  };
  return { counter, agentOptions: { extraTools: [tick], extraToolCatalog: [{ id: "tick", autoApprove: true }], budget: { ...budget, extendBy: { tokens: extendBy } } } };
}

describe("BUD-3 a budget pause through the gateway", () => {
  it("BUD-3 Responses: a run at its budget is incomplete with an approve_budget mcp_approval_request; approving resumes the same run once", async () => {
    const { counter, agentOptions } = ticking();
    const { client, model } = await gatewayWith(STEPS, { agentOptions });
    const paused = await client.responses.create({ model: MODEL, input: "Tick twice" });
    expect(paused).toMatchObject({ status: "incomplete", incomplete_details: { reason: "user_input_required" } });
    const request = paused.output.find((item) => item.type === "mcp_approval_request") as { id: string; name: string; arguments: string } | undefined;
    expect(request).toMatchObject({ name: "approve_budget", id: expect.stringMatching(/^budget:/) });
    expect(JSON.parse(request!.arguments)).toMatchObject({ message: expect.stringContaining("6040 of 11000 tokens spent. Approve to extend it by 5000 tokens."), budget: { scope: "run", unit: "tokens", spent: 6040, limit: 11_000 } });
    expect([counter.ticks, model.calls.length]).toEqual([2, 2]);

    const resumed = await client.responses.create({ model: MODEL, previous_response_id: paused.id, input: [{ type: "mcp_approval_response", approval_request_id: request!.id, approve: true }] });
    expect(resumed.status).toBe("completed");
    expect(resumed.output_text).toContain("Done ticking.");
    // Nothing redone: two ticks, one more model call.
    expect([counter.ticks, model.calls.length]).toEqual([2, 3]);
  }, 60_000);

  it("BUD-3 Responses: declining the budget approval ends the run failed with budget_exceeded, nothing more called", async () => {
    const { counter, agentOptions } = ticking();
    const { client, model } = await gatewayWith(STEPS, { agentOptions });
    const paused = await client.responses.create({ model: MODEL, input: "Tick twice" });
    const request = paused.output.find((item) => item.type === "mcp_approval_request") as { id: string };
    const declined = client.responses.create({ model: MODEL, previous_response_id: paused.id, input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: false }] });
    // The run fails with budget_exceeded (an HTTP error of the gateway's failed-run mapping).
    await expect(declined).rejects.toMatchObject({ message: expect.stringMatching(/the run budget .* is exhausted: 6040 of 11000 tokens spent/) });
    expect([counter.ticks, model.calls.length]).toEqual([2, 2]);
  }, 60_000);

  it("BUD-3 an approval too small for the call asks again under an id naming the new limit (no loop; the gateway forgets used answers); the second approval resumes the run", async () => {
    const { counter, agentOptions } = ticking(1500);
    const { client, model } = await gatewayWith(STEPS, { agentOptions });
    const approvalOf = (response: { output: Array<{ type: string }> }) => response.output.find((item) => item.type === "mcp_approval_request") as unknown as { id: string; arguments: string };
    const paused = await client.responses.create({ model: MODEL, input: "Tick twice" });
    const first = approvalOf(paused);
    const again = await client.responses.create({ model: MODEL, previous_response_id: paused.id, input: [{ type: "mcp_approval_response", approval_request_id: first.id, approve: true }] });
    expect(again.status).toBe("incomplete");
    const second = approvalOf(again);
    expect(second.id).toBe(`${first.id}:12500`);
    expect(JSON.parse(second.arguments)).toMatchObject({ budget: { spent: 6040, limit: 12_500 } });
    expect([counter.ticks, model.calls.length]).toEqual([2, 2]);
    const done = await client.responses.create({ model: MODEL, previous_response_id: again.id, input: [{ type: "mcp_approval_response", approval_request_id: second.id, approve: true }] });
    expect(done.status).toBe("completed");
    expect([counter.ticks, model.calls.length]).toEqual([2, 3]);
  }, 60_000);

  it("BUD-3 Chat Completions: the pause is an approve_budget tool call; a tool message approving it resumes the run", async () => {
    const { counter, agentOptions } = ticking();
    const { client, model } = await gatewayWith(STEPS, { agentOptions });
    const messages = [{ role: "user" as const, content: "Tick twice" }];
    const paused = await client.chat.completions.create({ model: MODEL, messages });
    const choice = paused.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls![0]! as { id: string; function: { name: string; arguments: string } };
    expect(call.function.name).toBe("approve_budget");
    expect(JSON.parse(call.function.arguments)).toMatchObject({ budget: { scope: "run", unit: "tokens", spent: 6040, limit: 11_000 } });
    const resumed = await client.chat.completions.create({ model: MODEL, messages: [...messages, choice.message, { role: "tool", tool_call_id: call.id, content: '{"approve": true}' }] });
    expect(resumed.choices[0]!.finish_reason).toBe("stop");
    expect(resumed.choices[0]!.message.content).toContain("Done ticking.");
    expect([counter.ticks, model.calls.length]).toEqual([2, 3]);
  }, 60_000);
});
