import { CAPABILITY_TOOL_IDS as IDS } from "../../src/domain/capabilities/catalog.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { connectInProcess, fixture, shortName } from "./support.js";

// CAP-1: one spec, two renderings — the same call gives the same content, the same details
// (as MCP structuredContent) and the same error, whichever rendering runs it.
describe("CAP-1 native and MCP renderings give the same results", () => {
  it("CAP-1 identical content, details/structuredContent and errors for the same calls", async () => {
    const fx = await fixture();
    await fx.tool(IDS.kv).execute("t", { action: "set", key: "k", value: { a: [1, "二", null] } });
    await fx.tool(IDS.knowledge).execute("t", { action: "upsert", documentId: "d", title: "Doc", markdown: "hello world" });
    await fx.tool(IDS.memory).execute("t", { action: "remember", memoryId: "m", markdown: "likes tea" });
    const calls: Array<[string, Record<string, unknown>]> = [
      [IDS.kv, { action: "get", key: "k" }],
      [IDS.kv, { action: "list" }],
      [IDS.kv, { action: "get", key: "missing" }],
      [IDS.kv, { action: "set", key: "agent.x", scope: "conversation", value: 1 }],
      [IDS.knowledge, { action: "get", documentId: "d" }],
      [IDS.knowledge, { action: "search", query: "hello" }],
      [IDS.knowledge, { action: "list", limit: 0 }],
      [IDS.memory, { action: "get", memoryId: "m" }],
      [IDS.memory, { action: "list", cursor: "search:0.000000000000" }],
      [IDS.presentCard, { action: "upsert", cardId: "c", kind: "browser", target: { url: "https://x.test/" } }],
      [IDS.presentCard, { action: "remove", cardId: "c", kind: "browser" }],
    ];
    const clients = new Map<string, Awaited<ReturnType<typeof connectInProcess>>>();
    for (const [toolId, args] of calls) {
      if (!clients.has(toolId)) clients.set(toolId, await connectInProcess(toolId, fx.context));
      const native = await fx.tool(toolId).execute("t", args).then(
        (result) => ({ isError: false, content: result.content, structured: result.details }),
        (error) => {
          if (!isSteamharnessError(error)) throw error;
          const payload = { error: error.toJSON() };
          return { isError: true, content: [{ type: "text", text: JSON.stringify(payload) }], structured: payload };
        },
      );
      const mcp = await clients.get(toolId)!.callTool({ name: shortName(toolId), arguments: args });
      expect([toolId, args, { isError: mcp.isError === true, content: mcp.content, structured: mcp.structuredContent }]).toEqual([toolId, args, native]);
    }
    for (const client of clients.values()) await client.close();
  });
});
