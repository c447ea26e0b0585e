import { STORE_LIMITS } from "../../domain/limits.js";
import { decodeKeyCursor, decodeRankCursor, encodeCursor, listingId } from "../../domain/page-cursor.js";
import { bm25, plainSnippet, queryTerms, termStats, type TermStats } from "../../domain/search-terms.js";
import {
  checkDocumentInput,
  checkKnowledgeFilter,
  checkPageLimit,
  checkProjectId,
  checkText,
  compareUtf16,
  matchesIdFilter,
} from "../../domain/store-input.js";
import type { Clock } from "../../ports/clock.js";
import type {
  KnowledgeDocument,
  KnowledgeDocumentSummary,
  KnowledgeSearchHit,
  KnowledgeStore,
} from "../../ports/knowledge-store.js";
import { createSystemClock } from "../system/clock.js";
import { SortedKeys, collectPage } from "./sorted-keys.js";

/** Options of {@link createMemoryKnowledgeStore}. */
export interface MemoryKnowledgeStoreOptions {
  clock?: Clock;
}

interface StoredDocument {
  doc: KnowledgeDocument;
  stats: TermStats;
}

interface Project {
  docs: Map<string, StoredDocument>;
  ids: SortedKeys;
  /** Inverted index: term → ids of documents containing it (any column). */
  postings: Map<string, Set<string>>;
  /** Sum of all documents' token counts, for BM25's average length. */
  totalLength: number;
}

/** Adds (`sign` 1) or removes (`sign` -1) a document's terms from the project's index. */
function index(project: Project, documentId: string, stats: TermStats, sign: 1 | -1): void {
  project.totalLength += sign * stats.length;
  for (const column of stats.columns) {
    for (const term of column.keys()) {
      let ids = project.postings.get(term);
      if (sign === 1) {
        if (!ids) project.postings.set(term, (ids = new Set()));
        ids.add(documentId);
      } else if (ids) {
        ids.delete(documentId);
        if (ids.size === 0) project.postings.delete(term);
      }
    }
  }
}

function summary({ documentId, title, createdAt, updatedAt }: KnowledgeDocument): KnowledgeDocumentSummary {
  return { documentId, title, createdAt, updatedAt };
}

/**
 * The in-memory reference knowledge store: documents per project, ids in a sorted index,
 * full-text search ranked by the same BM25 formula as SQLite FTS5.
 *
 * @example
 * const knowledge = createMemoryKnowledgeStore();
 * await knowledge.upsert("p", { documentId: "faq", title: "FAQ", markdown: "# Questions" });
 */
export function createMemoryKnowledgeStore(options: MemoryKnowledgeStoreOptions = {}): KnowledgeStore {
  const clock = options.clock ?? createSystemClock();
  const projects = new Map<string, Project>();

  const projectOf = (projectId: string, create: boolean): Project | undefined => {
    let project = projects.get(projectId);
    if (!project && create) {
      project = { docs: new Map(), ids: new SortedKeys(), postings: new Map(), totalLength: 0 };
      projects.set(projectId, project);
    }
    return project;
  };

  return {
    async upsert(projectInput, docInput) {
      const projectId = checkProjectId(projectInput);
      const input = checkDocumentInput(docInput);
      const project = projectOf(projectId, true)!;
      const now = clock.now();
      const previous = project.docs.get(input.documentId);
      const doc: KnowledgeDocument = { ...input, createdAt: previous?.doc.createdAt ?? now, updatedAt: now };
      const stats = termStats([doc.title, doc.markdown]);
      if (previous) index(project, doc.documentId, previous.stats, -1);
      index(project, doc.documentId, stats, 1);
      project.docs.set(doc.documentId, { doc, stats });
      project.ids.add(doc.documentId);
      return { ...doc };
    },

    async get(projectInput, documentId) {
      const projectId = checkProjectId(projectInput);
      const id = checkText("documentId", documentId, STORE_LIMITS.documentId);
      const stored = projectOf(projectId, false)?.docs.get(id);
      return stored ? { ...stored.doc } : null;
    },

    async delete(projectInput, documentId) {
      const projectId = checkProjectId(projectInput);
      const id = checkText("documentId", documentId, STORE_LIMITS.documentId);
      const project = projectOf(projectId, false);
      const stored = project?.docs.get(id);
      if (!project || !stored) return false;
      index(project, id, stored.stats, -1);
      project.docs.delete(id);
      project.ids.remove(id);
      return true;
    },

    async list(projectInput, listOptions = {}) {
      const projectId = checkProjectId(projectInput);
      const filter = checkKnowledgeFilter(listOptions);
      const limit = checkPageLimit(listOptions.limit);
      const listing = listingId({ kind: "knowledge-list", projectId, ...filter });
      const after = decodeKeyCursor(listing, listOptions.cursor);
      const project = projectOf(projectId, false);
      if (!project) return { items: [], nextCursor: null };
      const start = after === undefined ? project.ids.seek(filter.idPrefix) : project.ids.seek(after, true);
      const accept = (id: string): boolean => matchesIdFilter(id, filter);
      const { page, more } = collectPage(project.ids, start, filter.idPrefix, limit, accept);
      const items = page.map((id) => summary(project.docs.get(id)!.doc));
      return { items, nextCursor: more ? encodeCursor(listing, page[page.length - 1]) : null };
    },

    async search(projectInput, query, searchOptions = {}) {
      const projectId = checkProjectId(projectInput);
      const terms = queryTerms(checkText("query", query, STORE_LIMITS.searchQuery, true));
      const filter = checkKnowledgeFilter(searchOptions);
      const limit = checkPageLimit(searchOptions.limit);
      const listing = listingId({ kind: "knowledge-search", projectId, terms, ...filter });
      const after = decodeRankCursor(listing, searchOptions.cursor);
      const project = projectOf(projectId, false);
      if (!project || terms.length === 0) return { items: [], nextCursor: null };

      // Candidates come from the rarest term's postings; every other term must match too.
      const postings = terms.map((term) => project.postings.get(term) ?? new Set<string>());
      const hits = new Map(terms.map((term, i) => [term, postings[i].size]));
      const rarest = postings.reduce((a, b) => (b.size < a.size ? b : a));
      const corpus = { documents: project.docs.size, averageLength: project.totalLength / project.docs.size || 1, hits };
      const ranked: Array<{ stored: StoredDocument; score: number }> = [];
      for (const documentId of rarest) {
        if (!matchesIdFilter(documentId, filter)) continue;
        if (!postings.every((ids) => ids.has(documentId))) continue;
        const stored = project.docs.get(documentId)!;
        const score = bm25(terms, stored.stats, corpus);
        if (after && (score > after[0] || (score === after[0] && compareUtf16(documentId, after[1]) <= 0))) {
          continue;
        }
        ranked.push({ stored, score });
      }
      ranked.sort((a, b) => b.score - a.score || compareUtf16(a.stored.doc.documentId, b.stored.doc.documentId));
      const page = ranked.slice(0, limit);
      const items: KnowledgeSearchHit[] = page.map(({ stored, score }) => ({
        ...summary(stored.doc),
        snippet: plainSnippet(stored.doc, terms),
        score,
      }));
      const last = page[page.length - 1];
      const nextCursor =
        ranked.length > limit ? encodeCursor(listing, [last.score, last.stored.doc.documentId]) : null;
      return { items, nextCursor };
    },
  };
}
