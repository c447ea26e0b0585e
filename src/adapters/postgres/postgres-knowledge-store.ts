import { and, asc, desc, eq, gt, gte, lt, or, sql, type SQL } from "drizzle-orm";
import { STORE_LIMITS } from "../../domain/limits.js";
import { decodeKeyCursor, decodeRankCursor, encodeCursor, listingId } from "../../domain/page-cursor.js";
import { plainSnippet, queryTerms } from "../../domain/search-terms.js";
import { checkDocumentInput, checkKnowledgeFilter, checkPageLimit, checkProjectId, checkText } from "../../domain/store-input.js";
import type { KnowledgeFilter, KnowledgeSearchHit, KnowledgeStore } from "../../ports/knowledge-store.js";
import { prefixRange, sortKey } from "../sqlite/store/sqlite-support.js";
import { allTermsQuery, documentVector } from "./knowledge-vector.js";
import { guarded, type PostgresStoreContext } from "./postgres-database.js";
import type { PostgresTables } from "./schema.js";

/**
 * `ts_rank` weights in {D, C, B, A} order: body terms (D) count half as much as title terms (A).
 * PostgreSQL refuses weights above 1.
 */
const RANK_WEIGHTS = "{0.5,0.5,0.5,1.0}";
/** `ts_rank` normalization 1: divide by 1 + log(document length), so long bodies do not win by bulk. */
const RANK_NORMALIZATION = 1;

/** Conditions restricting `doc_key` to the filter's id prefix and away from its excluded prefix. */
function filterConditions(docs: PostgresTables["knowledgeDocuments"], filter: Required<KnowledgeFilter>): Array<SQL | undefined> {
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
 * The knowledge port on PostgreSQL: documents in `knowledge_documents` with a `tsvector` column
 * (GIN-indexed) built from the domain's tokenizer (see `knowledge-vector.ts`), searched with
 * `@@` and ranked by `ts_rank`; listing and search pages continue by keyset, never OFFSET.
 *
 * @example
 * const knowledge = createPostgresKnowledgeStore({ db, tables, clock, state: { closed: false } });
 */
export function createPostgresKnowledgeStore({ db, tables, clock, state }: PostgresStoreContext): KnowledgeStore {
  const docs = tables.knowledgeDocuments;
  const summaryColumns = { documentId: docs.documentId, title: docs.title, createdAt: docs.createdAt, updatedAt: docs.updatedAt };
  const byId = (projectId: string, documentId: string) => and(eq(docs.projectId, projectId), eq(docs.docKey, sortKey(documentId)));

  return {
    async upsert(projectInput, docInput) {
      const projectId = checkProjectId(projectInput);
      const input = checkDocumentInput(docInput);
      const search = documentVector(input.title, input.markdown);
      const now = clock.now();
      const [row] = await guarded(state, "knowledge upsert", () =>
        db
          .insert(docs)
          .values({ projectId, docKey: sortKey(input.documentId), ...input, search, createdAt: now, updatedAt: now })
          .onConflictDoUpdate({ target: [docs.projectId, docs.docKey], set: { title: input.title, markdown: input.markdown, search, updatedAt: now } })
          .returning({ ...summaryColumns, markdown: docs.markdown }),
      );
      return row;
    },

    async get(projectInput, documentInput) {
      const projectId = checkProjectId(projectInput);
      const documentId = checkText("documentId", documentInput, STORE_LIMITS.documentId);
      const [row] = await guarded(state, "knowledge get", () =>
        db.select({ ...summaryColumns, markdown: docs.markdown }).from(docs).where(byId(projectId, documentId)),
      );
      return row ?? null;
    },

    async delete(projectInput, documentInput) {
      const projectId = checkProjectId(projectInput);
      const documentId = checkText("documentId", documentInput, STORE_LIMITS.documentId);
      const result = await guarded(state, "knowledge delete", () => db.delete(docs).where(byId(projectId, documentId)));
      return (result.rowCount ?? 0) > 0;
    },

    async list(projectInput, options = {}) {
      const projectId = checkProjectId(projectInput);
      const filter = checkKnowledgeFilter(options);
      const limit = checkPageLimit(options.limit);
      const listing = listingId({ kind: "knowledge-list", projectId, ...filter });
      const after = decodeKeyCursor(listing, options.cursor);
      // Keyset pagination on the (project_id, doc_key) primary key, never OFFSET.
      const rows = await guarded(state, "knowledge list", () =>
        db
          .select(summaryColumns)
          .from(docs)
          .where(and(eq(docs.projectId, projectId), after === undefined ? undefined : gt(docs.docKey, sortKey(after)), ...filterConditions(docs, filter)))
          .orderBy(asc(docs.docKey))
          .limit(limit + 1),
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
      // Without terms (or with a term too long to be a lexeme) nothing can match.
      const tsquery = terms.length === 0 ? null : allTermsQuery(terms);

      // `@@`, ts_rank and the tsquery cast have no drizzle builder, hence the sql templates; the
      // query text and weights are parameters. float8 makes the score a JS number exactly, so a
      // cursor's score compares equal to the row it came from.
      const matches = sql`${docs.search} @@ ${tsquery}::tsquery`;
      const score = sql<number>`ts_rank(${RANK_WEIGHTS}::float4[], ${docs.search}, ${tsquery}::tsquery, ${RANK_NORMALIZATION})::float8`;
      const keyset =
        after === undefined ? undefined : or(sql`${score} < ${after[0]}::float8`, and(sql`${score} = ${after[0]}::float8`, gt(docs.docKey, sortKey(after[1]))));
      const rows = await guarded(state, "knowledge search", async () =>
        tsquery === null
          ? []
          : db
              .select({ ...summaryColumns, markdown: docs.markdown, score })
              .from(docs)
              .where(and(eq(docs.projectId, projectId), matches, ...filterConditions(docs, filter), keyset))
              .orderBy(desc(score), asc(docs.docKey))
              .limit(limit + 1),
      );
      const items: KnowledgeSearchHit[] = rows.slice(0, limit).map(({ markdown, ...hit }) => ({
        ...hit,
        snippet: plainSnippet({ title: hit.title, markdown }, terms),
      }));
      const last = items[items.length - 1];
      const nextCursor = rows.length > limit ? encodeCursor(listing, [last.score, last.documentId]) : null;
      return { items, nextCursor };
    },
  };
}
