import type { Page, PageOptions } from "./page.js";

/** A knowledge document as stored. Times are epoch milliseconds. */
export interface KnowledgeDocument {
  documentId: string;
  title: string;
  markdown: string;
  createdAt: number;
  updatedAt: number;
}

/** A document as listed: everything but the body. */
export type KnowledgeDocumentSummary = Omit<KnowledgeDocument, "markdown">;

/** A search hit: the summary, a short plain-text snippet and a relevance score (higher is better). */
export interface KnowledgeSearchHit extends KnowledgeDocumentSummary {
  snippet: string;
  score: number;
}

/** Filters shared by list and search: restrict to, or exclude, ids with a prefix. */
export interface KnowledgeFilter {
  idPrefix?: string;
  excludeIdPrefix?: string;
}

/** Options of {@link KnowledgeStore.list}. */
export interface KnowledgeListOptions extends PageOptions, KnowledgeFilter {}

/** Options of {@link KnowledgeStore.search}. */
export interface KnowledgeSearchOptions extends PageOptions, KnowledgeFilter {}

/** What {@link KnowledgeStore.upsert} writes. */
export interface KnowledgeDocumentInput {
  documentId: string;
  title: string;
  markdown: string;
}

/**
 * The knowledge-document port, one namespace per project. Ids are non-empty strings of at most
 * `STORE_LIMITS.documentId` UTF-16 units. Invalid input fails with `input_validation` and
 * changes nothing; adapter faults surface as `storage_failure`.
 */
export interface KnowledgeStore {
  /** Creates or replaces a document; `createdAt` is kept on replace. Resolves the stored document. */
  upsert(projectId: string, doc: KnowledgeDocumentInput): Promise<KnowledgeDocument>;
  /** The document, or `null` when absent. */
  get(projectId: string, documentId: string): Promise<KnowledgeDocument | null>;
  /** Removes the document; `true` when it existed. */
  delete(projectId: string, documentId: string): Promise<boolean>;
  /**
   * Summaries in ascending `documentId` order, keyset-paginated: documents added while paging
   * never cause a duplicate or a skipped document that existed throughout.
   */
  list(projectId: string, options?: KnowledgeListOptions): Promise<Page<KnowledgeDocumentSummary>>;
  /**
   * Full-text search over title and body, best match first (ties by `documentId`). Every term of
   * the query must match (words are matched by prefix-free, case-insensitive tokens). An empty or
   * punctuation-only query yields no hits. The cursor is valid only for the same query and filter.
   */
  search(projectId: string, query: string, options?: KnowledgeSearchOptions): Promise<Page<KnowledgeSearchHit>>;
}
