import { STORE_LIMITS } from "../domain/limits.js";
import type { KnowledgeDocumentInput, KnowledgeStore } from "../ports/knowledge-store.js";
import {
  collectAll,
  defineContract,
  errorCode,
  tamper,
  uniqueId,
  type ContractCases,
  type ContractFactory,
  type ContractOptions,
  type ContractTestApi,
} from "./contract-support.js";

/** Raw reads of a knowledge backend that bypass the adapter under test. */
export interface KnowledgeStoreInspect {
  /** Title and body as stored, or `null`. */
  get(projectId: string, documentId: string): Promise<{ title: string; markdown: string } | null>;
}

const FOREIGN = ["input_validation", "cursor_mismatch"];
const doc = (documentId: string, title: string, markdown: string): KnowledgeDocumentInput => ({
  documentId,
  title,
  markdown,
});

/** Documents without the search terms, so BM25's IDF stays positive for rarer terms. */
async function addFiller(store: KnowledgeStore, projectId: string, count = 6): Promise<void> {
  for (let i = 0; i < count; i++) {
    await store.upsert(projectId, doc(`filler-${i}`, `Filler ${i}`, "plain words about nothing in particular"));
  }
}

const ids = (items: Array<{ documentId: string }>): string[] => items.map((item) => item.documentId);

const cases: ContractCases<KnowledgeStore, KnowledgeStoreInspect> = {
  "upsert, get and replace keep createdAt": async ({ store, inspect, expect }) => {
    const p = uniqueId("p");
    const first = await store.upsert(p, doc("guide", "Guide", "# Guide\n\nFirst version 世界"));
    expect(first).toEqual(expect.objectContaining({ documentId: "guide", title: "Guide" }));
    expect(await store.get(p, "guide")).toEqual(first);
    const second = await store.upsert(p, doc("guide", "Guide v2", "Second version"));
    expect(second.createdAt).toBe(first.createdAt);
    expect(second.updatedAt).toBeGreaterThanOrEqual(first.updatedAt);
    expect((await store.get(p, "guide"))?.markdown).toBe("Second version");
    if (inspect) expect(await inspect.get(p, "guide")).toEqual({ title: "Guide v2", markdown: "Second version" });
  },

  "absent documents read null and delete reports whether one existed": async ({ store, expect }) => {
    const p = uniqueId("p");
    expect(await store.get(p, "missing")).toBeNull();
    expect(await store.delete(p, "missing")).toBe(false);
    await store.upsert(p, doc("d", "D", "body"));
    expect(await store.delete(p, "d")).toBe(true);
    expect(await store.get(p, "d")).toBeNull();
    expect(await store.delete(p, "d")).toBe(false);
  },

  "projects are isolated": async ({ store, expect }) => {
    const a = uniqueId("p");
    const b = uniqueId("p");
    await store.upsert(a, doc("d", "A", "alpha unicorn"));
    await store.upsert(b, doc("d", "B", "beta unicorn"));
    expect((await store.get(a, "d"))?.title).toBe("A");
    expect(ids((await store.list(b)).items)).toEqual(["d"]);
    expect((await store.search(a, "beta")).items).toEqual([]);
    expect(ids((await store.search(b, "unicorn")).items)).toEqual(["d"]);
    await store.delete(a, "d");
    expect((await store.get(b, "d"))?.title).toBe("B");
  },

  "list returns summaries in id order with prefix filters": async ({ store, expect }) => {
    const p = uniqueId("p");
    for (const id of ["faq/2", "faq/1", "guide/a", "faq/old/1", "zeta"]) await store.upsert(p, doc(id, id, "body"));
    const all = (await store.list(p)).items;
    expect(ids(all)).toEqual(["faq/1", "faq/2", "faq/old/1", "guide/a", "zeta"]);
    expect(Object.keys(all[0]).sort()).toEqual(["createdAt", "documentId", "title", "updatedAt"]);
    expect(ids((await store.list(p, { idPrefix: "faq/" })).items)).toEqual(["faq/1", "faq/2", "faq/old/1"]);
    const filtered = await store.list(p, { idPrefix: "faq/", excludeIdPrefix: "faq/old/" });
    expect(ids(filtered.items)).toEqual(["faq/1", "faq/2"]);
    expect(ids((await store.list(p, { excludeIdPrefix: "faq/" })).items)).toEqual(["guide/a", "zeta"]);
  },

  "list pagination survives inserts between pages": async ({ store, expect }) => {
    const p = uniqueId("p");
    const original = Array.from({ length: 40 }, (_, i) => `d${String(i * 2).padStart(3, "0")}`);
    for (const id of original) await store.upsert(p, doc(id, id, "x"));
    const seen: string[] = [];
    let cursor: string | null = null;
    let n = 1;
    do {
      const page: { items: Array<{ documentId: string }>; nextCursor: string | null } = await store.list(p, {
        limit: 6,
        cursor,
      });
      seen.push(...ids(page.items));
      cursor = page.nextCursor;
      await store.upsert(p, doc(`d${String(n).padStart(3, "0")}`, "new", "x"));
      await store.upsert(p, doc(`d${String(80 - n).padStart(3, "0")}`, "new", "x"));
      n += 4;
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(seen);
    for (const id of original) expect(seen).toContain(id);
    expect(seen.filter((id) => !original.includes(id)).length).toBeGreaterThan(0);
  },

  "search ranks the best match first": async ({ store, expect }) => {
    const p = uniqueId("p");
    await addFiller(store, p);
    await store.upsert(p, doc("weak", "Animals", `A zebra appears once among ${"many other words ".repeat(20)}`));
    await store.upsert(p, doc("strong", "Zebra facts", "zebra zebra zebra: the zebra is striped"));
    await store.upsert(p, doc("none", "Lions", "lions only"));
    const { items } = await store.search(p, "zebra");
    expect(ids(items)).toEqual(["strong", "weak"]);
    expect(items[0].score).toBeGreaterThan(items[1].score);
    expect(Object.keys(items[0]).sort()).toEqual(["createdAt", "documentId", "score", "snippet", "title", "updatedAt"]);
    expect(items[1].snippet.toLowerCase()).toContain("zebra");
    expect(items[1].snippet.length).toBeLessThan(300);
  },

  "search needs every term, ignores case and matches titles": async ({ store, expect }) => {
    const p = uniqueId("p");
    await addFiller(store, p);
    await store.upsert(p, doc("both", "Savanna", "zebra and lion"));
    await store.upsert(p, doc("zebra", "Stripes", "zebra only"));
    await store.upsert(p, doc("title", "Lion king", "a story"));
    expect(ids((await store.search(p, "ZEBRA Lion")).items)).toEqual(["both"]);
    expect(ids((await store.search(p, "king")).items)).toEqual(["title"]);
    expect((await store.search(p, "")).items).toEqual([]);
    expect((await store.search(p, "  !!! ?? ")).items).toEqual([]);
    // Query syntax is not interpreted: quotes, operators and stars are plain separators or words.
    expect(ids((await store.search(p, 'zebra" AND (lion*')).items)).toEqual(["both"]);
    expect((await store.search(p, "zebra OR lion")).items).toEqual([]);
  },

  "search honours idPrefix and excludeIdPrefix": async ({ store, expect }) => {
    const p = uniqueId("p");
    await addFiller(store, p);
    for (const id of ["faq/1", "faq/old/1", "blog/1"]) await store.upsert(p, doc(id, "Otter", "otter notes"));
    expect(ids((await store.search(p, "otter", { idPrefix: "faq/" })).items).sort()).toEqual(["faq/1", "faq/old/1"]);
    const filtered = await store.search(p, "otter", { idPrefix: "faq/", excludeIdPrefix: "faq/old/" });
    expect(ids(filtered.items)).toEqual(["faq/1"]);
    expect(ids((await store.search(p, "otter", { excludeIdPrefix: "faq/" })).items)).toEqual(["blog/1"]);
  },

  "deleted and replaced documents leave the index": async ({ store, expect }) => {
    const p = uniqueId("p");
    await addFiller(store, p);
    await store.upsert(p, doc("a", "First", "walrus"));
    await store.upsert(p, doc("b", "Second", "walrus"));
    await store.delete(p, "a");
    await store.upsert(p, doc("b", "Second", "narwhal"));
    expect((await store.search(p, "walrus")).items).toEqual([]);
    expect(ids((await store.search(p, "narwhal")).items)).toEqual(["b"]);
  },

  "search pages continue the same ranking": async ({ store, expect }) => {
    const p = uniqueId("p");
    await addFiller(store, p, 40);
    for (let i = 0; i < 23; i++) {
      await store.upsert(p, doc(`m${String(i).padStart(2, "0")}`, "Mole", `${"mole ".repeat((i % 5) + 1)}tunnels`));
    }
    const whole = ids((await store.search(p, "mole", { limit: 100 })).items);
    expect(whole).toHaveLength(23);
    const paged = ids(await collectAll((cursor) => store.search(p, "mole", { limit: 4, cursor })));
    expect(paged).toEqual(whole);
  },

  "bad cursors and cursors of another listing are refused": async ({ store, expect }) => {
    const p = uniqueId("p");
    await addFiller(store, p);
    for (let i = 0; i < 4; i++) await store.upsert(p, doc(`faq/${i}`, "Heron", "heron egret"));
    const listCursor = (await store.list(p, { idPrefix: "faq/", limit: 1 })).nextCursor!;
    const searchCursor = (await store.search(p, "heron", { limit: 1 })).nextCursor!;
    expect(typeof listCursor).toBe("string");
    expect(typeof searchCursor).toBe("string");
    for (const bad of ["", "garbage", tamper(listCursor), "x".repeat(STORE_LIMITS.cursor + 1)]) {
      expect(await errorCode(() => store.list(p, { idPrefix: "faq/", cursor: bad }))).toBe("input_validation");
      expect(await errorCode(() => store.search(p, "heron", { cursor: bad }))).toBe("input_validation");
    }
    expect(FOREIGN).toContain(await errorCode(() => store.list(p, { cursor: listCursor })));
    expect(FOREIGN).toContain(await errorCode(() => store.list(p, { idPrefix: "faq/", cursor: searchCursor })));
    expect(FOREIGN).toContain(await errorCode(() => store.search(p, "egret", { cursor: searchCursor })));
    expect(FOREIGN).toContain(await errorCode(() => store.search(p, "heron", { idPrefix: "f", cursor: searchCursor })));
    expect(FOREIGN).toContain(await errorCode(() => store.search(uniqueId("p"), "heron", { cursor: searchCursor })));
  },

  "invalid documents are refused and change nothing": async ({ store, inspect, expect }) => {
    const p = uniqueId("p");
    await store.upsert(p, doc("keep", "Keep", "kept body"));
    const bad: unknown[] = [
      doc("", "t", "m"),
      doc("x".repeat(STORE_LIMITS.documentId + 1), "t", "m"),
      doc("keep", "t".repeat(STORE_LIMITS.documentTitle + 1), "m"),
      doc("keep", "t", "m".repeat(STORE_LIMITS.documentMarkdown + 1)),
      { documentId: "keep", title: 1, markdown: "m" },
      { documentId: "keep", title: "t" },
      null,
    ];
    for (const input of bad) {
      expect(await errorCode(() => store.upsert(p, input as KnowledgeDocumentInput))).toBe("input_validation");
    }
    expect(await errorCode(() => store.upsert("", doc("d", "t", "m")))).toBe("input_validation");
    expect(await errorCode(() => store.search(p, "q".repeat(STORE_LIMITS.searchQuery + 1)))).toBe("input_validation");
    expect(await errorCode(() => store.list(p, { limit: 0 }))).toBe("input_validation");
    expect(ids((await store.list(p)).items)).toEqual(["keep"]);
    expect((await store.get(p, "keep"))?.markdown).toBe("kept body");
    if (inspect) expect(await inspect.get(p, "keep")).toEqual({ title: "Keep", markdown: "kept body" });
  },
};

/** Case names of {@link runKnowledgeStoreContract}, usable in `options.skip`. */
export const KNOWLEDGE_STORE_CONTRACT_CASES: readonly string[] = Object.keys(cases);

/**
 * The knowledge-store port contract: upsert/get/delete, id-ordered keyset listing with filters
 * and inserts between pages, relevance-ranked search with all-terms matching, filters and
 * paging, cursor validation and input limits. A fresh store per case from `factory`.
 *
 * @example
 * runKnowledgeStoreContract({ describe, it, expect }, () => ({ store: new MemoryStorage().knowledge }));
 */
export function runKnowledgeStoreContract(
  api: ContractTestApi,
  factory: ContractFactory<KnowledgeStore, KnowledgeStoreInspect>,
  options: ContractOptions = {},
): void {
  defineContract(api, "KnowledgeStore", factory, cases, options);
}
