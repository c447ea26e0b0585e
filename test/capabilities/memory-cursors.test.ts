import { CAPABILITY_TOOL_IDS as IDS } from "../../src/domain/capabilities/catalog.js";
import { fixture, nativeError, type Fixture } from "./support.js";

const result = (r: { details?: Record<string, unknown> }) => (r.details as any).result;

async function seeded(): Promise<Fixture> {
  const fx = await fixture();
  for (let i = 0; i < 7; i++) {
    await fx.tool(IDS.memory).execute("t", { action: "remember", memoryId: `m${i}`, title: `Roadmap note ${i}`, markdown: `roadmap milestone ${i}` });
    await fx.tool(IDS.knowledge).execute("t", { action: "upsert", documentId: `d${i}`, title: `Doc ${i}`, markdown: `roadmap document ${i}` });
  }
  return fx;
}

describe("CAP-6 memory lives in the knowledge store under assistant-memory-", () => {
  it("CAP-6 remember stores assistant-memory-<id> documents in the knowledge store", async () => {
    const fx = await seeded();
    const doc = await fx.storage.knowledge.get("project-1", "assistant-memory-m3");
    expect(doc).toMatchObject({ title: "Roadmap note 3", markdown: "roadmap milestone 3" });
    expect(result(await fx.tool(IDS.memory).execute("t", { action: "get", memoryId: "m3" }))).toMatchObject({ memoryId: "m3", markdown: "roadmap milestone 3" });
    expect(result(await fx.tool(IDS.memory).execute("t", { action: "forget", memoryId: "m3" }))).toEqual({ memoryId: "m3", forgotten: true });
    expect(await fx.storage.knowledge.get("project-1", "assistant-memory-m3")).toBeNull();
  });

  it("CAP-6 plain knowledge listings and searches never show memory, and knowledge cannot read or edit it", async () => {
    const fx = await seeded();
    const knowledge = fx.tool(IDS.knowledge);
    const listed = result(await knowledge.execute("t", { action: "list", limit: 100 }));
    expect(listed.documents.map((d: any) => d.documentId)).toEqual(["d0", "d1", "d2", "d3", "d4", "d5", "d6"]);
    const found = result(await knowledge.execute("t", { action: "search", query: "roadmap", limit: 100 }));
    expect(found.hits.every((h: any) => !h.documentId.startsWith("assistant-memory-"))).toBe(true);
    expect(found.hits).toHaveLength(7);
    for (const args of [
      { action: "get", documentId: "assistant-memory-m1" },
      { action: "upsert", documentId: "assistant-memory-m1", markdown: "hijack" },
      { action: "upsert", documentId: "assistant-memory-new", markdown: "sneak in" },
      { action: "delete", documentId: "assistant-memory-m1" },
    ]) {
      expect(await nativeError(knowledge.execute("t", args))).toMatchObject({ code: "input_validation", field: "documentId" });
    }
    expect((await fx.storage.knowledge.get("project-1", "assistant-memory-m1"))?.markdown).toBe("roadmap milestone 1");
    expect(await fx.storage.knowledge.get("project-1", "assistant-memory-new")).toBeNull();
    // Memory listings show only memory.
    const memories = result(await fx.tool(IDS.memory).execute("t", { action: "list", limit: 100 }));
    expect(memories.memories.map((m: any) => m.memoryId)).toEqual(["m0", "m1", "m2", "m3", "m4", "m5", "m6"]);
  });

  it("CAP-6 memory exists only with globalMemory: true", async () => {
    expect((await fixture({ globalMemory: false })).tools.map((t) => t.name)).not.toContain(IDS.memory);
    expect((await fixture({ globalMemory: true })).tools.map((t) => t.name)).toContain(IDS.memory);
  });

  it("CAP-6 remembering the same note twice stores one memory (default id is a content hash)", async () => {
    const fx = await fixture();
    const first = result(await fx.tool(IDS.memory).execute("t", { action: "remember", markdown: "Prefers tabs" }));
    const second = result(await fx.tool(IDS.memory).execute("t", { action: "remember", markdown: "Prefers tabs" }));
    expect(second.memoryId).toBe(first.memoryId);
    expect((await fx.storage.knowledge.list("project-1", { idPrefix: "assistant-memory-" })).items).toHaveLength(1);
  });
});

describe("CAP-7 memory cursors", () => {
  it("CAP-7 list pages with list: cursors and search pages with search: cursors, covering every item once", async () => {
    const fx = await seeded();
    const memory = fx.tool(IDS.memory);
    for (const action of ["list", "search"] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = result(await memory.execute("t", { action, ...(action === "search" ? { query: "roadmap" } : {}), limit: 3, ...(cursor ? { cursor } : {}) }));
        const items = action === "list" ? page.memories : page.hits;
        seen.push(...items.map((m: any) => m.memoryId));
        cursor = page.nextCursor ?? undefined;
        if (cursor) expect(cursor.startsWith(`${action}:`)).toBe(true);
        if (cursor) expect(cursor.length).toBeLessThanOrEqual(80);
      } while (cursor);
      expect(seen.sort()).toEqual(["m0", "m1", "m2", "m3", "m4", "m5", "m6"]);
    }
  });

  it("CAP-7 a cursor from the other action is refused explicitly, never reinterpreted", async () => {
    const fx = await seeded();
    const memory = fx.tool(IDS.memory);
    const listCursor = result(await memory.execute("t", { action: "list", limit: 2 })).nextCursor as string;
    const searchCursor = result(await memory.execute("t", { action: "search", query: "roadmap", limit: 2 })).nextCursor as string;
    const a = await nativeError(memory.execute("t", { action: "search", query: "roadmap", cursor: listCursor }));
    expect(a).toMatchObject({ code: "input_validation", field: "cursor" });
    expect(a.message).toContain("from action list");
    const b = await nativeError(memory.execute("t", { action: "list", cursor: searchCursor }));
    expect(b.message).toContain("from action search");
    // Even with the prefix rewritten, the inner cursor is bound to its listing.
    const swapped = `search:${listCursor.slice("list:".length)}`;
    expect(await nativeError(memory.execute("t", { action: "search", query: "roadmap", cursor: swapped }))).toMatchObject({ code: "input_validation", field: "cursor" });
  });

  it("CAP-7 tampered, malformed and foreign cursors are refused", async () => {
    const fx = await seeded();
    const memory = fx.tool(IDS.memory);
    const cursor = result(await memory.execute("t", { action: "list", limit: 2 })).nextCursor as string;
    const [, inner] = cursor.split(":");
    const [offset, check] = inner.split(".");
    const searchCursor = result(await memory.execute("t", { action: "search", query: "roadmap", limit: 2 })).nextCursor as string;
    const bad = [
      `list:${Number(offset) + 1}.${check}`, // offset edited
      `list:${offset}.${check.replace(/^./, (c) => (c === "0" ? "1" : "0"))}`, // check edited
      `list:${offset}`,
      "list:",
      "list:-2.abcdefabcdef",
      `list:0${offset}.${check}`,
      "2",
      "LIST:2.abcdefabcdef",
      `list:${offset}.${check} `,
    ];
    for (const c of bad) expect([c, (await nativeError(memory.execute("t", { action: "list", cursor: c }))).field]).toEqual([c, "cursor"]);
    // A search cursor for another query is refused.
    expect(await nativeError(memory.execute("t", { action: "search", query: "milestone", cursor: searchCursor }))).toMatchObject({ field: "cursor" });
    // A knowledge cursor is not a memory cursor, and a memory cursor is not a knowledge cursor.
    const knowledgeCursor = result(await fx.tool(IDS.knowledge).execute("t", { action: "list", limit: 2 })).nextCursor as string;
    expect(await nativeError(memory.execute("t", { action: "list", cursor: knowledgeCursor }))).toMatchObject({ field: "cursor" });
    expect(await nativeError(memory.execute("t", { action: "list", cursor: `list:${knowledgeCursor}` }))).toMatchObject({ field: "cursor" });
    expect(await nativeError(fx.tool(IDS.knowledge).execute("t", { action: "list", cursor: inner }))).toMatchObject({ field: "cursor" });
  });

  it("CAP-7 knowledge and KV cursors are bound to their listing too", async () => {
    const fx = await seeded();
    const knowledge = fx.tool(IDS.knowledge);
    const listCursor = result(await knowledge.execute("t", { action: "list", limit: 2 })).nextCursor as string;
    expect(await nativeError(knowledge.execute("t", { action: "search", query: "roadmap", cursor: listCursor }))).toMatchObject({ field: "cursor" });
    const kv = fx.tool(IDS.kv);
    for (let i = 0; i < 5; i++) await kv.execute("t", { action: "set", key: `p.${i}`, value: i });
    const kvCursor = result(await kv.execute("t", { action: "list", prefix: "p.", limit: 2 })).nextCursor as string;
    expect(result(await kv.execute("t", { action: "list", prefix: "p.", limit: 2, cursor: kvCursor })).keys.map((k: any) => k.key)).toEqual(["p.2", "p.3"]);
    expect(await nativeError(kv.execute("t", { action: "list", prefix: "q.", cursor: kvCursor }))).toMatchObject({ field: "cursor" });
    expect(await nativeError(kv.execute("t", { action: "list", scope: "conversation", prefix: "p.", cursor: kvCursor }))).toMatchObject({ field: "cursor" });
  });
});
