import { bm25, termStats, type TermStats } from "../../../domain/search-terms.js";
import { compareUtf16, matchesIdFilter } from "../../../domain/store-input.js";
import type { Clock } from "../../../ports/clock.js";
import type { KnowledgeDocument, KnowledgeDocumentSummary, KnowledgeStore } from "../../../ports/knowledge-store.js";
import { createKnowledgeStore, type KnowledgeMatch, type KnowledgeRows } from "../kernel/knowledge-store.js";
import { directCall } from "../kernel/store-call.js";
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
 * The knowledge rows in memory: documents per project, ids in a sorted index, an inverted index
 * for search ranked by the same BM25 formula as SQLite FTS5. Rows hand out copies.
 *
 * @example
 * const rows = createMemoryKnowledgeRows();
 */
export function createMemoryKnowledgeRows(): KnowledgeRows {
  const projects = new Map<string, Project>();
  const projectOf = (projectId: string, create: boolean): Project | undefined => {
    let project = projects.get(projectId);
    if (!project && create) projects.set(projectId, (project = { docs: new Map(), ids: new SortedKeys(), postings: new Map(), totalLength: 0 }));
    return project;
  };

  return {
    upsert(projectId, input, now) {
      const project = projectOf(projectId, true)!;
      const previous = project.docs.get(input.documentId);
      const doc: KnowledgeDocument = { ...input, createdAt: previous?.doc.createdAt ?? now, updatedAt: now };
      const stats = termStats([doc.title, doc.markdown]);
      if (previous) index(project, doc.documentId, previous.stats, -1);
      index(project, doc.documentId, stats, 1);
      project.docs.set(doc.documentId, { doc, stats });
      project.ids.add(doc.documentId);
      return { ...doc };
    },

    get(projectId, documentId) {
      const stored = projectOf(projectId, false)?.docs.get(documentId);
      return stored && { ...stored.doc };
    },

    delete(projectId, documentId) {
      const project = projectOf(projectId, false);
      const stored = project?.docs.get(documentId);
      if (!project || !stored) return false;
      index(project, documentId, stored.stats, -1);
      project.docs.delete(documentId);
      project.ids.remove(documentId);
      return true;
    },

    list(projectId, { filter, after, limit }) {
      const project = projectOf(projectId, false);
      if (!project) return [];
      const start = after === undefined ? project.ids.seek(filter.idPrefix) : project.ids.seek(after, true);
      const { page } = collectPage(project.ids, start, filter.idPrefix, limit, (id) => matchesIdFilter(id, filter));
      return page.map((id) => summary(project.docs.get(id)!.doc));
    },

    search(projectId, terms, { filter, after, limit }) {
      const project = projectOf(projectId, false);
      if (!project) return [];
      // Candidates come from the rarest term's postings; every other term must match too.
      const postings = terms.map((term) => project.postings.get(term) ?? new Set<string>());
      const hits = new Map(terms.map((term, i) => [term, postings[i].size]));
      const rarest = postings.reduce((a, b) => (b.size < a.size ? b : a));
      const corpus = { documents: project.docs.size, averageLength: project.totalLength / project.docs.size || 1, hits };
      const ranked: KnowledgeMatch[] = [];
      for (const documentId of rarest) {
        if (!matchesIdFilter(documentId, filter) || !postings.every((ids) => ids.has(documentId))) continue;
        const stored = project.docs.get(documentId)!;
        const score = bm25(terms, stored.stats, corpus);
        if (after && (score > after[0] || (score === after[0] && compareUtf16(documentId, after[1]) <= 0))) continue;
        ranked.push({ ...stored.doc, score });
      }
      return ranked.sort((a, b) => b.score - a.score || compareUtf16(a.documentId, b.documentId)).slice(0, limit);
    },
  };
}

/**
 * The in-memory reference knowledge store: the kernel's knowledge port over
 * {@link createMemoryKnowledgeRows}.
 *
 * @example
 * const knowledge = createMemoryKnowledgeStore();
 * await knowledge.upsert("p", { documentId: "faq", title: "FAQ", markdown: "# Questions" });
 */
export function createMemoryKnowledgeStore(options: MemoryKnowledgeStoreOptions = {}): KnowledgeStore {
  return createKnowledgeStore(createMemoryKnowledgeRows(), directCall, options.clock ?? createSystemClock());
}
