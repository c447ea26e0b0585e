import type { SQL } from "drizzle-orm";
import { STORE_LIMITS } from "../../../domain/limits.js";
import { decodeKeyCursor, decodeRankCursor, encodeCursor, listingId } from "../../../domain/page-cursor.js";
import { plainSnippet, queryTerms } from "../../../domain/search-terms.js";
import {
  checkDocumentInput,
  checkKnowledgeFilter,
  checkPageLimit,
  checkProjectId,
  checkText,
} from "../../../domain/store-input.js";
import type { KnowledgeFilter, KnowledgeSearchHit, KnowledgeStore } from "../../../ports/knowledge-store.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { storeTables } from "./schema.js";
import type { SqliteStoreContext } from "./sqlite-kv-store.js";
import { assertOpen, prefixRange, sortKey, withSqliteRetry } from "./sqlite-support.js";

/** Conditions restricting `doc_key` to the filter's id prefix and away from its excluded prefix. */
function filterConditions(filter: Required<KnowledgeFilter>): Array<SQL | undefined> {
  const { gte, lt, or } = drizzleOrm();
  const { knowledgeDocuments: docs } = storeTables();
  const conditions: Array<SQL | undefined> = [];
  if (filter.idPrefix !== "") {
    const { low, high } = prefixRange(filter.idPrefix);
    conditions.push(gte(docs.docKey, low), high === null ? undefined : lt(docs.docKey, high));
  }
  if (filter.excludeIdPrefix !== "") {
    const { low, high } = prefixRange(filter.excludeIdPrefix);
    conditions.push(high === null ? lt(docs.docKey, low) : or(lt(docs.docKey, low), gte(docs.docKey, high)));
  }
  return conditions;
}

/**
 * The knowledge port on SQLite: documents in `knowledge_documents`, full-text search through the
 * FTS5 table `knowledge_fts` (kept in step by triggers) ranked by bm25.
 *
 * @example
 * const knowledge = createSqliteKnowledgeStore({ db, clock, state: { closed: false } });
 */
export function createSqliteKnowledgeStore({ db, clock, state }: SqliteStoreContext): KnowledgeStore {
  const { and, asc, eq, gt, gte, inArray, lt, or, sql } = drizzleOrm();
  const { knowledgeDocuments: docs } = storeTables();
  const summaryColumns = {
    documentId: docs.documentId,
    title: docs.title,
    createdAt: docs.createdAt,
    updatedAt: docs.updatedAt,
  };
  const byId = (projectId: string, documentId: string) =>
    and(eq(docs.projectId, projectId), eq(docs.docKey, sortKey(documentId)));

  return {
    async upsert(projectInput, docInput) {
      const projectId = checkProjectId(projectInput);
      const input = checkDocumentInput(docInput);
      assertOpen(state.closed);
      const now = clock.now();
      const row = withSqliteRetry("knowledge upsert", () =>
        db
          .insert(docs)
          .values({ projectId, docKey: sortKey(input.documentId), ...input, createdAt: now, updatedAt: now })
          .onConflictDoUpdate({
            target: [docs.projectId, docs.docKey],
            set: { title: input.title, markdown: input.markdown, updatedAt: now },
          })
          .returning({ ...summaryColumns, markdown: docs.markdown })
          .get(),
      );
      return row;
    },

    async get(projectInput, documentInput) {
      const projectId = checkProjectId(projectInput);
      const documentId = checkText("documentId", documentInput, STORE_LIMITS.documentId);
      assertOpen(state.closed);
      const row = withSqliteRetry("knowledge get", () =>
        db.select({ ...summaryColumns, markdown: docs.markdown }).from(docs).where(byId(projectId, documentId)).get(),
      );
      return row ?? null;
    },

    async delete(projectInput, documentInput) {
      const projectId = checkProjectId(projectInput);
      const documentId = checkText("documentId", documentInput, STORE_LIMITS.documentId);
      assertOpen(state.closed);
      const result = withSqliteRetry("knowledge delete", () => db.delete(docs).where(byId(projectId, documentId)).run());
      return result.changes > 0;
    },

    async list(projectInput, options = {}) {
      const projectId = checkProjectId(projectInput);
      const filter = checkKnowledgeFilter(options);
      const limit = checkPageLimit(options.limit);
      const listing = listingId({ kind: "knowledge-list", projectId, ...filter });
      const after = decodeKeyCursor(listing, options.cursor);
      assertOpen(state.closed);
      // Keyset pagination on the (project_id, doc_key) unique index, never OFFSET.
      const rows = withSqliteRetry("knowledge list", () =>
        db
          .select(summaryColumns)
          .from(docs)
          .where(
            and(
              eq(docs.projectId, projectId),
              after === undefined ? undefined : gt(docs.docKey, sortKey(after)),
              ...filterConditions(filter),
            ),
          )
          .orderBy(asc(docs.docKey))
          .limit(limit + 1)
          .all(),
      );
      const items = rows.slice(0, limit);
      const nextCursor = rows.length > limit ? encodeCursor(listing, items[items.length - 1].documentId) : null;
      return { items, nextCursor };
    },

    async search(projectInput, query, options = {}) {
      const projectId = checkProjectId(projectInput);
      const terms = queryTerms(checkText("query", query, STORE_LIMITS.searchQuery, true));
      const filter = checkKnowledgeFilter(options);
      const limit = checkPageLimit(options.limit);
      const listing = listingId({ kind: "knowledge-search", projectId, terms, ...filter });
      const after = decodeRankCursor(listing, options.cursor);
      assertOpen(state.closed);
      if (terms.length === 0) return { items: [], nextCursor: null };

      // FTS5 MATCH and bm25() have no drizzle builder, hence the sql template. Terms hold only
      // letters and digits, so quoting each makes a safe all-terms (implicit AND) query.
      const match = terms.map((term) => `"${term}"`).join(" ");
      const score = sql`(-bm25(knowledge_fts))`;
      const conditions = and(
        sql`knowledge_fts MATCH ${match}`,
        eq(docs.projectId, projectId),
        ...filterConditions(filter),
        after === undefined
          ? undefined
          : or(sql`${score} < ${after[0]}`, and(sql`${score} = ${after[0]}`, gt(docs.docKey, sortKey(after[1])))),
      );
      // One read transaction: the ranking and the page's rows come from the same snapshot.
      const { ranked, rows } = withSqliteRetry("knowledge search", () =>
        db.transaction((tx) => {
          // CROSS JOIN keeps the FTS index as the outer loop (SQLite's join-order hint).
          const hits = tx.all<{ id: number; score: number }>(sql`
            SELECT ${docs.id} AS id, ${score} AS score
            FROM knowledge_fts CROSS JOIN ${docs} ON ${docs.id} = knowledge_fts.rowid
            WHERE ${conditions}
            ORDER BY score DESC, ${docs.docKey} ASC
            LIMIT ${limit + 1}`);
          const ids = hits.slice(0, limit).map((hit) => hit.id);
          const found = ids.length === 0
            ? []
            : tx
                .select({ id: docs.id, ...summaryColumns, markdown: docs.markdown })
                .from(docs)
                .where(inArray(docs.id, ids))
                .all();
          return { ranked: hits, rows: found };
        }),
      );
      const byRowId = new Map(rows.map((row) => [row.id, row]));
      const items: KnowledgeSearchHit[] = ranked.slice(0, limit).map((hit) => {
        const { documentId, title, createdAt, updatedAt, markdown } = byRowId.get(hit.id)!;
        return { documentId, title, createdAt, updatedAt, snippet: plainSnippet({ title, markdown }, terms), score: hit.score };
      });
      const last = items[items.length - 1];
      const nextCursor = ranked.length > limit ? encodeCursor(listing, [last.score, last.documentId]) : null;
      return { items, nextCursor };
    },
  };
}
