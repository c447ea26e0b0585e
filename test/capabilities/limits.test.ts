import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CAPABILITY_TOOL_IDS as IDS } from "../../src/domain/capabilities/catalog.js";
import { codePointLength } from "../../src/domain/capabilities/text-limits.js";
import { connectInProcess, fixture, mcpCall, nativeError, shortName, type Fixture } from "./support.js";

// CAP-4: every limit at the boundary — N characters accepted, N+1 refused with input_validation
// naming the field — for ASCII, a BMP multi-byte character and an astral character (two UTF-16
// units, one code point: the limits count code points).
interface LimitCase {
  toolId: string;
  field: string;
  limit: number;
  args(value: string): Record<string, unknown>;
}

const cases: LimitCase[] = [
  { toolId: IDS.knowledge, field: "markdown", limit: 200_000, args: (v) => ({ action: "upsert", documentId: "doc", markdown: v }) },
  { toolId: IDS.knowledge, field: "title", limit: 200, args: (v) => ({ action: "upsert", documentId: "doc", title: v, markdown: "body" }) },
  { toolId: IDS.knowledge, field: "documentId", limit: 200, args: (v) => ({ action: "upsert", documentId: v, markdown: "body" }) },
  { toolId: IDS.knowledge, field: "query", limit: 500, args: (v) => ({ action: "search", query: v }) },
  { toolId: IDS.memory, field: "markdown", limit: 100_000, args: (v) => ({ action: "remember", markdown: v }) },
  { toolId: IDS.memory, field: "title", limit: 200, args: (v) => ({ action: "remember", title: v, markdown: "note" }) },
  { toolId: IDS.memory, field: "query", limit: 500, args: (v) => ({ action: "search", query: v }) },
  { toolId: IDS.kv, field: "key", limit: 500, args: (v) => ({ action: "set", key: v, value: 1 }) },
  { toolId: IDS.kv, field: "prefix", limit: 500, args: (v) => ({ action: "list", prefix: v }) },
];

const characters = [
  { name: "ASCII", char: "a" },
  { name: "BMP multi-byte 中", char: "中" },
  { name: "astral 😀", char: "😀" },
];

describe("CAP-4 limits count code points, in both renderings", () => {
  let fx: Fixture;
  const clients = new Map<string, Client>();

  beforeAll(async () => {
    fx = await fixture();
    for (const toolId of [IDS.knowledge, IDS.memory, IDS.kv]) clients.set(toolId, await connectInProcess(toolId, fx.context));
  });
  afterAll(async () => {
    for (const client of clients.values()) await client.close();
  });

  for (const c of cases) {
    for (const { name, char } of characters) {
      it(`CAP-4 ${c.toolId} ${c.field}: ${c.limit} ${name} accepted, ${c.limit + 1} refused (native)`, async () => {
        const ok = char.repeat(c.limit);
        expect(codePointLength(ok)).toBe(c.limit);
        await expect(fx.tool(c.toolId).execute("t", c.args(ok))).resolves.toBeDefined();
        const error = await nativeError(fx.tool(c.toolId).execute("t", c.args(ok + char)));
        expect(error).toMatchObject({ code: "input_validation", field: c.field });
        expect(error.message).toContain(String(c.limit));
      });

      it(`CAP-4 ${c.toolId} ${c.field}: ${c.limit} ${name} accepted, ${c.limit + 1} refused (MCP)`, async () => {
        const client = clients.get(c.toolId)!;
        const ok = char.repeat(c.limit);
        expect((await mcpCall(client, shortName(c.toolId), c.args(ok))).ok).toBe(true);
        const refused = await mcpCall(client, shortName(c.toolId), c.args(ok + char));
        expect(refused.ok).toBe(false);
        expect(refused.structured.error).toMatchObject({ code: "input_validation", field: c.field });
        expect(refused.structured.error.message).toContain(String(c.limit));
      });
    }
  }

  it("CAP-4 memoryId fits the 200-character document id: 183 accepted, 184 refused", async () => {
    const memory = fx.tool(IDS.memory);
    await expect(memory.execute("t", { action: "remember", memoryId: "😀".repeat(183), markdown: "x" })).resolves.toBeDefined();
    expect(await nativeError(memory.execute("t", { action: "remember", memoryId: "😀".repeat(184), markdown: "x" }))).toMatchObject({
      code: "input_validation",
      field: "memoryId",
    });
  });

  it("CAP-4 cursor: 80 characters pass the length check (then fail as malformed), 81 fail the length check", async () => {
    for (const toolId of [IDS.knowledge, IDS.kv, IDS.memory]) {
      const at = await nativeError(fx.tool(toolId).execute("t", { action: "list", cursor: "😀".repeat(80) }));
      expect(at).toMatchObject({ code: "input_validation", field: "cursor" });
      expect(at.message).not.toContain("longer than");
      const over = await nativeError(fx.tool(toolId).execute("t", { action: "list", cursor: "😀".repeat(81) }));
      expect(over).toMatchObject({ code: "input_validation", field: "cursor" });
      expect(over.message).toContain("longer than 80");
    }
  });

  it("CAP-4 page size (ours): 1 and 100 accepted; 0, 101 and 1.5 refused, naming limit", async () => {
    for (const toolId of [IDS.knowledge, IDS.kv, IDS.memory]) {
      for (const limit of [1, 100]) await expect(fx.tool(toolId).execute("t", { action: "list", limit })).resolves.toBeDefined();
      for (const limit of [0, 101, 1.5, "10"]) {
        expect(await nativeError(fx.tool(toolId).execute("t", { action: "list", limit }))).toMatchObject({ code: "input_validation", field: "limit" });
      }
    }
  });

  it("CAP-4 an over-long field writes nothing", async () => {
    const before = await fx.storage.knowledge.list("project-1", { limit: 500 });
    await nativeError(fx.tool(IDS.knowledge).execute("t", { action: "upsert", documentId: "never", markdown: "x".repeat(200_001) }));
    expect(await fx.storage.knowledge.get("project-1", "never")).toBeNull();
    expect((await fx.storage.knowledge.list("project-1", { limit: 500 })).items.length).toBe(before.items.length);
  });
});
