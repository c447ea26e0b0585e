/**
 * The knowledge port written once (ARCH-3): validation, listing and search cursors, keyset paging
 * and snippets, over a family's {@link KnowledgeRows} (which store documents and rank matches).
 */
import { STORE_LIMITS } from "../../../domain/limits.js";
import { decodeKeyCursor, decodeRankCursor, listingId } from "../../../domain/page-cursor.js";
import { plainSnippet, queryTerms } from "../../../domain/search-terms.js";
import { checkDocumentInput, checkKnowledgeFilter, checkPageLimit, checkProjectId, checkText } from "../../../domain/store-input.js";
import type { Clock } from "../../../ports/clock.js";
import type {
  KnowledgeDocument,
  KnowledgeDocumentInput,
  KnowledgeDocumentSummary,
  KnowledgeFilter,
  KnowledgeSearchHit,
  KnowledgeStore,
} from "../../../ports/knowledge-store.js";
import { keyRange, sortKey } from "./sort-key.js";
import { then, type Sql, type SqlDriver, type SqlOperators, type SqlStatement } from "./sql-driver.js";
import { pageOf, type Awaitable, type StoreCall } from "./store-call.js";

/** A page request of the rows: at most `limit` rows matching `filter`, strictly after `after`. */
export interface KnowledgePage<After> {
  filter: Required<KnowledgeFilter>;
  after?: After;
  limit: number;
}

/** A ranked match as the rows return it: the document and its score (higher is better). */
export type KnowledgeMatch = KnowledgeDocument & { score: number };

/** Row access of the knowledge port. Project and document ids arrive checked. */
export interface KnowledgeRows {
  /** Creates or replaces the document (keeping `createdAt` on replace) stamped `now`; resolves it. */
  upsert(projectId: string, doc: KnowledgeDocumentInput, now: number): Awaitable<KnowledgeDocument>;
  /** The document, or null/undefined. */
  get(projectId: string, documentId: string): Awaitable<KnowledgeDocument | null | undefined>;
  /** Removes the document; `true` when it existed. */
  delete(projectId: string, documentId: string): Awaitable<boolean>;
  /** Summaries in ascending UTF-16 `documentId` order. */
  list(projectId: string, page: KnowledgePage<string>): Awaitable<KnowledgeDocumentSummary[]>;
  /**
   * Documents holding every one of `terms` (at least one), best first, ties by `documentId`;
   * `after` is the `[score, documentId]` of the previous page's last hit.
   */
  search(projectId: string, terms: string[], page: KnowledgePage<[number, string]>): Awaitable<KnowledgeMatch[]>;
}

/**
 * The conditions the SQL row drivers (SQLite, PostgreSQL) of `knowledge_documents` share, on its
 * project and sort-key (`doc_key`) columns: one document, the id filter, and a listing page
 * (keyset on the sort key, never OFFSET).
 *
 * @example
 * const { page } = knowledgeConditions({ and, eq, gt, gte, lt, or }, docs.projectId, docs.docKey);
 * db.select(summaryColumns).from(docs).where(page(projectId, filter, after)).orderBy(asc(docs.docKey)).limit(limit);
 */
export function knowledgeConditions(ops: SqlOperators, projectColumn: Sql, keyColumn: Sql) {
  const idFilter = (filter: Required<KnowledgeFilter>, after?: string) => keyRange(ops, keyColumn, { prefix: filter.idPrefix, excludePrefix: filter.excludeIdPrefix, after });
  return {
    byId: (projectId: string, documentId: string) => ops.and(ops.eq(projectColumn, projectId), ops.eq(keyColumn, sortKey(documentId))),
    idFilter,
    page: (projectId: string, filter: Required<KnowledgeFilter>, after?: string) => ops.and(ops.eq(projectColumn, projectId), ...idFilter(filter, after)),
  };
}

const checkDocumentId = (documentId: unknown): string => checkText("documentId", documentId, STORE_LIMITS.documentId);

/**
 * The knowledge port over `rows`, each step run through `call`; `clock` stamps writes.
 *
 * @example
 * const knowledge = createKnowledgeStore(sqlKnowledgeRows(driver, sqliteFullText), sqliteCall(state), clock);
 */
export function createKnowledgeStore(rows: KnowledgeRows, call: StoreCall, clock: Clock): KnowledgeStore {
  return {
    async upsert(projectInput, docInput) {
      const projectId = checkProjectId(projectInput);
      const input = checkDocumentInput(docInput);
      return call("knowledge upsert", () => rows.upsert(projectId, input, clock.now()));
    },

    async get(projectInput, documentInput) {
      const projectId = checkProjectId(projectInput);
      const documentId = checkDocumentId(documentInput);
      return (await call("knowledge get", () => rows.get(projectId, documentId))) ?? null;
    },

    async delete(projectInput, documentInput) {
      const projectId = checkProjectId(projectInput);
      const documentId = checkDocumentId(documentInput);
      return call("knowledge delete", () => rows.delete(projectId, documentId));
    },

    async list(projectInput, options = {}) {
      const projectId = checkProjectId(projectInput);
      const filter = checkKnowledgeFilter(options);
      const limit = checkPageLimit(options.limit);
      const listing = listingId({ kind: "knowledge-list", projectId, ...filter });
      const after = decodeKeyCursor(listing, options.cursor);
      const found = await call("knowledge list", () => rows.list(projectId, { filter, ...(after === undefined ? {} : { after }), limit: limit + 1 }));
      return pageOf(found, limit, listing, (row) => row, (item) => item.documentId);
    },

    async search(projectInput, query, options = {}) {
      const projectId = checkProjectId(projectInput);
      const terms = queryTerms(checkText("query", query, STORE_LIMITS.searchQuery, true));
      const filter = checkKnowledgeFilter(options);
      const limit = checkPageLimit(options.limit);
      const listing = listingId({ kind: "knowledge-search", projectId, terms, ...filter });
      const after = decodeRankCursor(listing, options.cursor);
      const found = await call("knowledge search", () =>
        terms.length === 0 ? [] : rows.search(projectId, terms, { filter, ...(after === undefined ? {} : { after }), limit: limit + 1 }),
      );
      const hit = ({ markdown, ...summary }: KnowledgeMatch): KnowledgeSearchHit => ({ ...summary, snippet: plainSnippet({ title: summary.title, markdown }, terms) });
      return pageOf(found, limit, listing, hit, (item) => [item.score, item.documentId]);
    },
  };
}

/** What only one dialect does for the knowledge rows: its full-text search, and the search column an upsert writes (PostgreSQL). */
export interface KnowledgeSearch {
  search(driver: SqlDriver, columns: Record<string, Sql>, conditions: ReturnType<typeof knowledgeConditions>): KnowledgeRows["search"];
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

/**
 * The knowledge rows on a SQL driver (`knowledge_documents`, keyed by the document id's sort key),
 * with the dialect's own full-text search.
 *
 * @example
 * const knowledge = createKnowledgeStore(sqlKnowledgeRows(driver, sqliteFullText), sqliteCall(state), clock);
 */
export function sqlKnowledgeRows(driver: SqlDriver, fullText: KnowledgeSearch): KnowledgeRows {
  const { db, tables: { knowledgeDocuments: docs }, ops: { asc } } = driver;
  const summaryColumns = { documentId: docs.documentId, title: docs.title, createdAt: docs.createdAt, updatedAt: docs.updatedAt };
  const documentColumns = { ...summaryColumns, markdown: docs.markdown };
  const conditions = knowledgeConditions(driver.ops, docs.projectId, docs.docKey);
  return {
    upsert: (projectId, input, now) => driver.execute(UPSERT, { projectId, docKey: sortKey(input.documentId), ...input, ...fullText.indexed?.(input.title, input.markdown), now }),
    get: (projectId, documentId) => driver.get(db.select(documentColumns).from(docs).where(conditions.byId(projectId, documentId))),
    delete: (projectId, documentId) => then(driver.run(db.delete(docs).where(conditions.byId(projectId, documentId))), (count) => count > 0),
    list: (projectId, { filter, after, limit }) => driver.all(db.select(summaryColumns).from(docs).where(conditions.page(projectId, filter, after)).orderBy(asc(docs.docKey)).limit(limit)),
    search: fullText.search(driver, documentColumns, conditions),
  };
}
