import { CAPABILITY_TOOL_IDS as IDS } from "../../src/domain/capabilities/catalog.js";
import { isReservedKvKey } from "../../src/domain/capabilities/reserved-keys.js";
import { connectInProcess, fixture, mcpCall, nativeError } from "./support.js";

const BOTH_SCOPES = ["tokenUsage.total", "tokenUsage.entry.run-1:req-1", "tokenUsage.entry.", "tokenUsage.entry.会话"];
const CONVERSATION_ONLY = ["conversation.state", "agent.pendingPlanApproval", "agent.", "agent.x.y"];
// Near-misses (documented in src/domain/capabilities/reserved-keys.ts): ordinary keys.
const NEAR_MISSES = [
  "tokenUsage.totalX",
  "tokenUsage.total.x",
  "tokenUsage.entry",
  "TokenUsage.total",
  "tokenusage.entry.x",
  "TOKENUSAGE.TOTAL",
  "agent",
  "agentX",
  "agents.x",
  "Agent.pendingPlanApproval",
  " agent.x",
  "conversation.stateX",
  "Conversation.state",
  "conversation",
];

describe("CAP-5 reserved KV keys", () => {
  it("CAP-5 the predicate: both-scope keys, conversation-only keys, near-misses", () => {
    for (const key of BOTH_SCOPES) {
      expect([key, isReservedKvKey(key, "project"), isReservedKvKey(key, "conversation")]).toEqual([key, true, true]);
    }
    for (const key of CONVERSATION_ONLY) {
      expect([key, isReservedKvKey(key, "project"), isReservedKvKey(key, "conversation")]).toEqual([key, false, true]);
    }
    for (const key of NEAR_MISSES) {
      expect([key, isReservedKvKey(key, "project"), isReservedKvKey(key, "conversation")]).toEqual([key, false, false]);
    }
  });

  it("CAP-5 set and delete of every reserved key are refused in both scopes, natively and over MCP, and change nothing", async () => {
    const fx = await fixture();
    const kv = fx.tool(IDS.kv);
    const client = await connectInProcess(IDS.kv, fx.context);
    const conversationNs = { projectId: "project-1", conversationId: "conversation-1" };
    const projectNs = { projectId: "project-1" };
    // The runtime's own values, which must survive.
    for (const key of [...BOTH_SCOPES, ...CONVERSATION_ONLY]) {
      await fx.storage.kv.set(conversationNs, key, { runtime: key });
      await fx.storage.kv.set(projectNs, key, { runtime: key });
    }
    const attempts: Array<{ scope: "project" | "conversation"; key: string }> = [
      ...BOTH_SCOPES.flatMap((key) => [{ scope: "project" as const, key }, { scope: "conversation" as const, key }]),
      ...CONVERSATION_ONLY.map((key) => ({ scope: "conversation" as const, key })),
    ];
    for (const { scope, key } of attempts) {
      for (const args of [{ action: "set", scope, key, value: "overwrite" }, { action: "delete", scope, key }]) {
        const native = await nativeError(kv.execute("t", args));
        expect([key, native.code, native.field]).toEqual([key, "input_validation", "key"]);
        const mcp = await mcpCall(client, "kv_store", args);
        expect([key, mcp.ok, mcp.structured.error.code, mcp.structured.error.field]).toEqual([key, false, "input_validation", "key"]);
      }
      const ns = scope === "project" ? projectNs : conversationNs;
      expect((await fx.storage.kv.get(ns, key))?.value).toEqual({ runtime: key });
    }
    // Reads stay allowed.
    const read = await kv.execute("t", { action: "get", scope: "conversation", key: "agent.pendingPlanApproval" });
    expect((read.details as any).result.value).toEqual({ runtime: "agent.pendingPlanApproval" });
    await client.close();
  });

  it("CAP-5 conversation-only keys and near-misses are writable where they are not reserved", async () => {
    const fx = await fixture();
    const kv = fx.tool(IDS.kv);
    for (const key of CONVERSATION_ONLY) {
      await kv.execute("t", { action: "set", scope: "project", key, value: 1 });
      expect((await fx.storage.kv.get({ projectId: "project-1" }, key))?.value).toBe(1);
    }
    for (const key of NEAR_MISSES) {
      for (const scope of ["project", "conversation"] as const) {
        await kv.execute("t", { action: "set", scope, key, value: key });
        await expect(kv.execute("t", { action: "delete", scope, key })).resolves.toBeDefined();
      }
    }
  });

  it("CAP-5 conversation scope without a conversation fails with input_validation on scope", async () => {
    const fx = await fixture({ conversationId: undefined });
    expect(await nativeError(fx.tool(IDS.kv).execute("t", { action: "get", scope: "conversation", key: "a" }))).toMatchObject({
      code: "input_validation",
      field: "scope",
    });
  });
});
