/**
 * The knowledge port written once (ARCH-3, ARCH-8) on the SQL row driver: validation, listing and
 * search cursors, keyset paging and snippets; each dialect adds only its full-text search.
 */
import { STORE_LIMITS } from "../../../domain/limits.js";
import { decodeKeyCursor, decodeRankCursor, listingId } from "../../../domain/page-cursor.js";
import { plainSnippet, queryTerms } from "../../../domain/search-terms.js";
import { checkDocumentInput, checkKnowledgeFilter, checkPageLimit, checkProjectId, checkText } from "../../../domain/store-input.js";
import type { KnowledgeDocument, KnowledgeDocumentSummary, KnowledgeFilter, KnowledgeSearchHit, KnowledgeStore } from "../../../ports/knowledge-store.js";
import { keyRange, sortKey } from "./sort-key.js";
import { then, type Sql, type SqlDriver, type SqlStatement } from "./sql-driver.js";
import { pageOf, type Awaitable, type StoreCall } from "./store-call.js";

/** A ranked match as a dialect's search returns it: the document and its score (higher is better). */
export type KnowledgeMatch = KnowledgeDocument & { score: number };

/** What only one dialect does for the knowledge rows: its full-text search, and the search column an upsert writes (PostgreSQL). */
export interface KnowledgeSearch {
  /**
   * At most `limit` documents holding every one of `terms` (at least one) and meeting `where(score)`
   * (the project, the id filter and the page's keyset on the dialect's score expression), best first, ties by `documentId`.
   */
  search(driver: SqlDriver, columns: Record<string, Sql>): (terms: string[], where: (score: Sql) => Sql[], limit: number) => Awaitable<KnowledgeMatch[]>;
  indexed?(title: string, markdown: string): Record<string, unknown>;
}

// An upsert, with the dialect's search column where it has one (`indexed` gives its value): each driver builds it once.
const UPSERT: SqlStatement<Record<string, unknown>> = {
  mode: "get",
  build: ({ db, dialect, tables: { knowledgeDocuments: docs } }, p) => {
    const set = { title: p("title"), markdown: p("markdown"), ...(dialect === "postgres" ? { search: p("search") } : {}), updatedAt: p("now") };
    const { documentId, title, markdown, createdAt, updatedAt } = docs;
    return db.insert(docs).values({ projectId: p("projectId"), docKey: p("docKey"), documentId: p("documentId"), ...set, createdAt: p("now") }).onConflictDoUpdate({ target: [docs.projectId, docs.docKey], set }).returning({ documentId, title, createdAt, updatedAt, markdown });
  },
};

const checkDocumentId = (documentId: unknown): string => checkText("documentId", documentId, STORE_LIMITS.documentId);

/**
 * The knowledge port on a SQL driver (`knowledge_documents`, keyed by the document id's sort key),
 * each step run through `call`, with the dialect's own full-text search; the driver's clock
 * stamps writes.
 *
 * @example
 * const knowledge = createKnowledgeStore(driver, sqliteCall(state), sqliteFullText);
 */
export function createKnowledgeStore(driver: SqlDriver, call: StoreCall, fullText: KnowledgeSearch): KnowledgeStore {
  const { db, clock, tables: { knowledgeDocuments: docs }, ops } = driver;
  const summaryColumns = { documentId: docs.documentId, title: docs.title, createdAt: docs.createdAt, updatedAt: docs.updatedAt };
  const documentColumns = { ...summaryColumns, markdown: docs.markdown };
  const idFilter = (filter: Required<KnowledgeFilter>, after?: string) => keyRange(ops, docs.docKey, { prefix: filter.idPrefix, excludePrefix: filter.excludeIdPrefix, after });
  const byId = (projectInput: unknown, documentInput: unknown) => ops.and(ops.eq(docs.projectId, checkProjectId(projectInput)), ops.eq(docs.docKey, sortKey(checkDocumentId(documentInput))));
  const search = fullText.search(driver, documentColumns);
  return {
    async upsert(projectInput, docInput) {
      const projectId = checkProjectId(projectInput);
      const input = checkDocumentInput(docInput);
      const params = { projectId, docKey: sortKey(input.documentId), ...input, ...fullText.indexed?.(input.title, input.markdown), now: clock.now() };
      return call("knowledge upsert", () => driver.execute(UPSERT, params));
    },

    async get(projectInput, documentInput) {
      const where = byId(projectInput, documentInput);
      return (await call("knowledge get", () => driver.get(db.select(documentColumns).from(docs).where(where)))) ?? null;
    },

    async delete(projectInput, documentInput) {
      const where = byId(projectInput, documentInput);
      return call("knowledge delete", () => then(driver.run(db.delete(docs).where(where)), (count) => count > 0));
    },

    async list(projectInput, options = {}) {
      const projectId = checkProjectId(projectInput);
      const filter = checkKnowledgeFilter(options);
      const limit = checkPageLimit(options.limit);
      const listing = listingId({ kind: "knowledge-list", projectId, ...filter });
      const where = ops.and(ops.eq(docs.projectId, projectId), ...idFilter(filter, decodeKeyCursor(listing, options.cursor)));
      const found: KnowledgeDocumentSummary[] = await call("knowledge list", () => driver.all(db.select(summaryColumns).from(docs).where(where).orderBy(ops.asc(docs.docKey)).limit(limit + 1)));
      return pageOf(found, limit, listing, (row) => row, (item) => item.documentId);
    },

    async search(projectInput, query, options = {}) {
      const projectId = checkProjectId(projectInput);
      const terms = queryTerms(checkText("query", query, STORE_LIMITS.searchQuery, true));
      const filter = checkKnowledgeFilter(options);
      const limit = checkPageLimit(options.limit);
      const listing = listingId({ kind: "knowledge-search", projectId, terms, ...filter });
      const after = decodeRankCursor(listing, options.cursor);
      // Keyset paging on (score, document key), never OFFSET.
      const where = (score: Sql) => [ops.eq(docs.projectId, projectId), ...idFilter(filter), after && ops.or(ops.lt(score, after[0]), ops.and(ops.eq(score, after[0]), ops.gt(docs.docKey, sortKey(after[1]))))];
      const found = await call("knowledge search", () => (terms.length === 0 ? [] : search(terms, where, limit + 1)));
      const hit = ({ markdown, ...summary }: KnowledgeMatch): KnowledgeSearchHit => ({ ...summary, snippet: plainSnippet({ title: summary.title, markdown }, terms) });
      return pageOf(found, limit, listing, hit, (item) => [item.score, item.documentId]);
    },
  };
}
