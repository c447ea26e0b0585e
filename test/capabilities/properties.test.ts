import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CAPABILITY_ADDRESSES, CAPABILITY_TOOL_IDS as IDS } from "../../src/domain/capabilities/catalog.js";
import { HOST_BRIDGE_TOKEN_ENV, HOST_BRIDGE_URL_ENV } from "../../src/domain/capabilities/host-bridge.js";
import type { SteamharnessErrorCode } from "../../src/domain/errors.js";
import { connectInProcess, fixture, mcpCall, type Fixture } from "./support.js";

// Property tests (fast-check): random argument objects — mostly near the real surface (known
// fields and actions with random values), some arbitrary JSON — never crash a server, always
// get either a result or a CAP-0 error, and an invalid call never writes.
const FIELDS = [
  "action", "documentId", "title", "markdown", "query", "cursor", "limit", "scope", "key", "value", "prefix", "memoryId",
  "cardId", "kind", "target", "pinned", "preview", "kanban", "storageLocation", "projectId", "configurationId", "revision",
  "operation", "name", "values", "bogus", "__proto__", "constructor",
];
const ACTIONS = ["list", "get", "search", "upsert", "delete", "set", "remember", "forget", "remove", "get_configurations", "manage_configurations", "LIST", ""];
const SPECIAL = ["project", "conversation", "kanban", "browser", "file", "knowledge", "kv", "local", "server", "current", "preview", "update", "create",
  "tokenUsage.total", "tokenUsage.entry.x", "agent.x", "conversation.state", "assistant-memory-x", "list:0.000000000000", "search:1.abcdefabcdef",
  "https://example.com/", "../x", "/etc/passwd", "ghp_" + "a".repeat(36)];

const leaf = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ maxLength: 600 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(...ACTIONS),
  fc.constantFrom(...SPECIAL),
);
const value = fc.oneof({ weight: 4, arbitrary: leaf }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) }, { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), leaf) });
const nearSurface = fc.record({ action: fc.constantFrom(...ACTIONS) }).chain((base) =>
  fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 }).map((rest) => ({ ...rest, ...base })),
);
const argsArbitrary = fc.oneof({ weight: 6, arbitrary: nearSurface }, { weight: 2, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), value) }, { weight: 1, arbitrary: fc.jsonValue() });

const CODES: SteamharnessErrorCode[] = ["input_validation", "not_found", "unavailable", "conflict"];

describe("CAP-4 property tests", () => {
  let fx: Fixture;
  const clients = new Map<string, Client>();
  let bridge: ReturnType<typeof createServer>;

  beforeAll(async () => {
    bridge = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      });
    });
    await new Promise<void>((resolve) => bridge.listen(0, "127.0.0.1", resolve));
    const env = { [HOST_BRIDGE_URL_ENV]: `http://127.0.0.1:${(bridge.address() as AddressInfo).port}`, [HOST_BRIDGE_TOKEN_ENV]: "t" };
    fx = await fixture({ env });
    for (const { toolId } of CAPABILITY_ADDRESSES) clients.set(toolId, await connectInProcess(toolId, fx.context, { env }));
  });
  afterAll(async () => {
    for (const client of clients.values()) await client.close();
    await new Promise<void>((resolve) => bridge.close(() => resolve()));
  });

  for (const { toolId, toolName } of CAPABILITY_ADDRESSES) {
    it(`CAP-4 ${toolId}: 1500 random argument objects never crash the MCP server or the native tool`, async () => {
      const client = clients.get(toolId)!;
      await fc.assert(
        fc.asyncProperty(argsArbitrary, async (args) => {
          if (args === null || typeof args !== "object" || Array.isArray(args)) {
            // Not an arguments object: the SDK refuses the request itself with a JSON-RPC error.
            await expect(client.callTool({ name: toolName, arguments: args as any })).rejects.toThrow(/MCP error/);
          } else {
            const mcp = await mcpCall(client, toolName, args);
            if (!mcp.ok) expect(CODES).toContain(mcp.structured.error.code);
          }
          const native = await fx.tool(toolId).execute("p", args).then(
            () => "ok",
            (error) => error.code,
          );
          expect(native === "ok" || CODES.includes(native)).toBe(true);
        }),
        { numRuns: 1500 },
      );
      // Still serving.
      expect((await client.listTools()).tools[0].name).toBe(toolName);
    }, 240_000);
  }

  it("CAP-4 an invalid call never writes (KV, knowledge, memory)", async () => {
    const local = await fixture();
    const writable = [IDS.kv, IDS.knowledge, IDS.memory];
    const snapshot = async () => {
      const kvProject = await local.storage.kv.list({ projectId: "project-1" }, { limit: 500 });
      const kvConversation = await local.storage.kv.list({ projectId: "project-1", conversationId: "conversation-1" }, { limit: 500 });
      const docs = await local.storage.knowledge.list("project-1", { limit: 500 });
      const bodies = await Promise.all(docs.items.map((d) => local.storage.knowledge.get("project-1", d.documentId)));
      return JSON.stringify([kvProject.items, kvConversation.items, bodies]);
    };
    let failures = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writable), argsArbitrary, async (toolId, args) => {
        const before = await snapshot();
        const outcome = await local.tool(toolId).execute("p", args).then(
          () => "ok",
          (error) => error.code as string,
        );
        if (outcome !== "ok") {
          failures++;
          expect(await snapshot()).toBe(before);
        }
      }),
      { numRuns: 800 },
    );
    expect(failures).toBeGreaterThan(100);
  }, 240_000);
});
