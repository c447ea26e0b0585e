import { createToolApprovalGate, toolApprovalRequestId } from "../../src/domain/approval-gate.js";
import { isSteamharnessError, UserInputRequiredError } from "../../src/domain/errors.js";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import type { ToolCatalogEntry } from "../../src/domain/node-context.js";

function contextWith(tools: ToolCatalogEntry[], runId = "run-1") {
  const toolPermissions = createMemoryToolPermissions();
  return { runId, toolCatalog: tools, toolPermissions, signal: new AbortController().signal };
}

describe("createToolApprovalGate (WF-0, CAP-3)", () => {
  const gate = createToolApprovalGate();
  const call = { name: "workflow-kv_kv_store", arguments: { action: "set", key: "a", value: 1 } };

  it("CAP-3 an undeclared tool fails with tool_not_registered", async () => {
    const error = await gate.approve(call, contextWith([])).catch((e) => e);
    expect(isSteamharnessError(error, "tool_not_registered")).toBe(true);
    expect(error.message).toMatch(/tool not registered/);
  });

  it("CAP-3 enabled: false is denied without asking", async () => {
    const context = contextWith([{ id: call.name, enabled: false }]);
    await expect(gate.approve(call, context)).rejects.toMatchObject({ code: "approval_denied" });
    expect(context.toolPermissions.requests).toHaveLength(0);
  });

  it("CAP-3 autoApprove approves without asking", async () => {
    const context = contextWith([{ id: call.name, autoApprove: true }]);
    await expect(gate.approve(call, context)).resolves.toBeUndefined();
    expect(context.toolPermissions.requests).toHaveLength(0);
  });

  it("SES-8 otherwise asks toolPermissions, pauses with a stable request id, and resumes with the decision", async () => {
    const context = contextWith([{ id: call.name }]);
    const paused = await gate.approve(call, context).catch((e) => e);
    expect(paused).toBeInstanceOf(UserInputRequiredError);
    expect(paused.code).toBe("user_input_required");
    expect(paused.requestId).toBe(toolApprovalRequestId("run-1", call.name, { key: "a", value: 1, action: "set" }));
    context.toolPermissions.resolve(paused.requestId, { outcome: "approved" });
    await expect(gate.approve(call, context)).resolves.toBeUndefined();
  });

  it("SES-8 a decision never carries over to another run or other arguments", async () => {
    const context = contextWith([{ id: call.name }]);
    const paused = await gate.approve(call, context).catch((e) => e);
    context.toolPermissions.resolve(paused.requestId, { outcome: "approved" });
    await expect(gate.approve(call, { ...context, runId: "run-2" })).rejects.toBeInstanceOf(UserInputRequiredError);
    await expect(gate.approve({ ...call, arguments: { ...call.arguments, value: 2 } }, context)).rejects.toBeInstanceOf(UserInputRequiredError);
  });

  it("CAP-3 a denial carries the reason", async () => {
    const context = contextWith([{ id: call.name }]);
    const paused = await gate.approve(call, context).catch((e) => e);
    context.toolPermissions.resolve(paused.requestId, { outcome: "denied", reason: "read-only today" });
    await expect(gate.approve(call, context)).rejects.toThrow(/denied: read-only today/);
  });
});
