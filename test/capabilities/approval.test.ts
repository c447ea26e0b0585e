import { createToolApprovalGate } from "../../src/domain/approval-gate.js";
import { UserInputRequiredError, isSteamharnessError, SteamharnessError } from "../../src/domain/errors.js";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { CAPABILITY_TOOL_IDS as IDS } from "../../src/domain/capabilities/catalog.js";
import { createProjectCapabilityServer, runProjectCapabilityAction } from "../../src/app/capabilities/project-capabilities.js";
import type { ToolCatalogEntry } from "../../src/domain/node-context.js";
import { connectInProcess, fixture, mcpCall, nativeError } from "./support.js";

const SET = { action: "set", key: "greeting", value: "hello" };

async function gated(tools: ToolCatalogEntry[], decide?: Parameters<typeof createMemoryToolPermissions>[0]) {
  const toolPermissions = createMemoryToolPermissions(decide);
  const approval = createToolApprovalGate();
  let context: any;
  const fx = await fixture({
    toolCatalog: tools,
    toolPermissions,
    approve: (toolId, args) => approval.approve({ name: toolId, arguments: args }, context),
  });
  context = fx.context;
  const client = await connectInProcess(IDS.kv, fx.context, { approve: (toolId, args) => approval.approve({ name: toolId, arguments: args }, fx.context) });
  const stored = async () => (await fx.storage.kv.get({ projectId: "project-1" }, "greeting"))?.value ?? null;
  return { ...fx, toolPermissions, client, stored };
}

describe("CAP-3 approval through createToolApprovalGate, in both renderings", () => {
  it("CAP-3 a tool absent from executor.tools fails with tool not registered and writes nothing", async () => {
    const fx = await gated([]);
    const native = await nativeError(fx.tool(IDS.kv).execute("call-1", SET));
    expect(native.code).toBe("tool_not_registered");
    expect(native.message).toMatch(/tool not registered/);
    const mcp = await mcpCall(fx.client, "kv_store", SET);
    expect(mcp.structured.error.code).toBe("tool_not_registered");
    expect(await fx.stored()).toBeNull();
  });

  it("CAP-3 enabled: false and a denial write nothing; autoApprove runs", async () => {
    const disabled = await gated([{ id: IDS.kv, enabled: false }]);
    // Disabled tools are not exposed natively; a server built for one explicitly still denies.
    expect(disabled.tools.map((t) => t.name)).toEqual([IDS.knowledge, IDS.memory, IDS.presentCard]);
    expect((await mcpCall(disabled.client, "kv_store", SET)).structured.error.code).toBe("approval_denied");
    expect(await disabled.stored()).toBeNull();

    const denied = await gated([{ id: IDS.kv }], { decide: () => ({ outcome: "denied", reason: "not today" }) });
    expect(await nativeError(denied.tool(IDS.kv).execute("c", SET))).toMatchObject({ code: "approval_denied" });
    expect((await mcpCall(denied.client, "kv_store", { ...SET, value: "other" })).structured.error.code).toBe("approval_denied");
    expect(await denied.stored()).toBeNull();

    const auto = await gated([{ id: IDS.kv, autoApprove: true }]);
    await auto.tool(IDS.kv).execute("c", SET);
    expect(await auto.stored()).toBe("hello");
    expect((await mcpCall(auto.client, "kv_store", { action: "get", key: "greeting" })).structured.result.value).toBe("hello");
    expect(auto.toolPermissions.requests).toHaveLength(0);
  });

  it("CAP-2 CAP-3 a paused approval resumes with runProjectCapabilityAction by tool id", async () => {
    const fx = await gated([{ id: IDS.kv }]);
    const paused = await fx.tool(IDS.kv).execute("call-1", SET).catch((e) => e);
    expect(paused).toBeInstanceOf(UserInputRequiredError);
    expect(isSteamharnessError(paused, "user_input_required")).toBe(true);
    expect(await fx.stored()).toBeNull();
    expect(fx.toolPermissions.pending()).toEqual([paused.requestId]);
    // Over MCP the pause is an error result the host can read.
    expect((await mcpCall(fx.client, "kv_store", SET)).structured.error.code).toBe("user_input_required");
    expect(await fx.stored()).toBeNull();
    // The person approves; the turn is over, so the host resumes by tool id.
    fx.toolPermissions.resolve(paused.requestId, { outcome: "approved" });
    const resumed = await runProjectCapabilityAction(paused.request.toolId as string, fx.context, paused.request.arguments);
    expect(JSON.parse(resumed.content[0].text)).toEqual({ scope: "project", key: "greeting", stored: true });
    expect((resumed.details as any).resourceCard.kind).toBe("kv");
    expect(await fx.stored()).toBe("hello");
  });

  it("CAP-3 approve runs before every execution with the tool id and the validated arguments; invalid calls are not sent for approval", async () => {
    const seen: Array<[string, unknown]> = [];
    const approve = async (toolId: string, args: unknown) => {
      seen.push([toolId, args]);
    };
    const fx = await fixture({ approve });
    const client = await connectInProcess(IDS.kv, fx.context, { approve });
    await fx.tool(IDS.kv).execute("c", { ...SET, scope: undefined });
    await mcpCall(client, "kv_store", { action: "get", key: "greeting" });
    await fx.tool(IDS.knowledge).execute("c", { action: "list" });
    expect(seen).toEqual([
      [IDS.kv, SET],
      [IDS.kv, { action: "get", key: "greeting" }],
      [IDS.knowledge, { action: "list" }],
    ]);
    await nativeError(fx.tool(IDS.kv).execute("c", { action: "set", key: "" , value: 1 }));
    await mcpCall(client, "kv_store", { action: "explode" });
    expect(seen).toHaveLength(3);
  });

  it("CAP-2 runProjectCapabilityAction rejects with the capability's error; unknown ids throw in every entry point", async () => {
    const fx = await fixture();
    await expect(runProjectCapabilityAction(IDS.kv, fx.context, { action: "set", key: "tokenUsage.total", value: 0 })).rejects.toMatchObject({
      code: "input_validation",
      field: "key",
    });
    await expect(runProjectCapabilityAction("workflow-kv_nope", fx.context, SET)).rejects.toBeInstanceOf(SteamharnessError);
    await expect(createProjectCapabilityServer("workflow-kv_nope", { context: fx.context })).rejects.toMatchObject({ code: "not_found" });
    await expect(createProjectCapabilityServer("", { context: fx.context })).rejects.toMatchObject({ code: "not_found" });
  });
});
