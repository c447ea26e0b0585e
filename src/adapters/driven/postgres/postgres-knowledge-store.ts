import { and, asc, desc, eq, gt, gte, lt, or, sql } from "drizzle-orm";
import type { KnowledgeStore } from "../../../ports/knowledge-store.js";
import { createKnowledgeStore, knowledgeConditions, type KnowledgeRows } from "../kernel/knowledge-store.js";
import { sortKey } from "../kernel/sort-key.js";
import { allTermsQuery, documentVector } from "./knowledge-vector.js";
import { postgresCall, type PostgresStoreContext } from "./postgres-database.js";

/**
 * `ts_rank` weights in {D, C, B, A} order: body terms (D) count half as much as title terms (A).
 * PostgreSQL refuses weights above 1.
 */
const RANK_WEIGHTS = "{0.5,0.5,0.5,1.0}";
/** `ts_rank` normalization 1: divide by 1 + log(document length), so long bodies do not win by bulk. */
const RANK_NORMALIZATION = 1;

/**
 * The knowledge rows on PostgreSQL: documents in `knowledge_documents` with a `tsvector` column
 * (GIN-indexed) built from the domain's tokenizer (see `knowledge-vector.ts`), searched with
 * `@@` and ranked by `ts_rank`; listing and search pages continue by keyset, never OFFSET.
 *
 * @example
 * const rows = createPostgresKnowledgeRows(context);
 */
export function createPostgresKnowledgeRows({ db, tables }: Pick<PostgresStoreContext, "db" | "tables">): KnowledgeRows {
  const docs = tables.knowledgeDocuments;
  const summaryColumns = { documentId: docs.documentId, title: docs.title, createdAt: docs.createdAt, updatedAt: docs.updatedAt };
  const documentColumns = { ...summaryColumns, markdown: docs.markdown };
  const { byId, idFilter, page } = knowledgeConditions({ and, eq, gt, gte, lt, or }, docs.projectId, docs.docKey);

  return {
    async upsert(projectId, input, now) {
      const search = documentVector(input.title, input.markdown);
      const [row] = await db
        .insert(docs)
        .values({ projectId, docKey: sortKey(input.documentId), ...input, search, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: [docs.projectId, docs.docKey], set: { title: input.title, markdown: input.markdown, search, updatedAt: now } })
        .returning(documentColumns);
      return row;
    },
    get: async (projectId, documentId) => (await db.select(documentColumns).from(docs).where(byId(projectId, documentId)))[0],
    delete: async (projectId, documentId) => ((await db.delete(docs).where(byId(projectId, documentId))).rowCount ?? 0) > 0,
    list: (projectId, { filter, after, limit }) => db.select(summaryColumns).from(docs).where(page(projectId, filter, after)).orderBy(asc(docs.docKey)).limit(limit),
    async search(projectId, terms, { filter, after, limit }) {
      // A term too long to be a lexeme cannot match anything.
      const tsquery = allTermsQuery(terms);
      if (tsquery === null) return [];
      // `@@`, ts_rank and the tsquery cast have no drizzle builder, hence the sql templates; the
      // query text and weights are parameters. float8 makes the score a JS number exactly, so a
      // cursor's score compares equal to the row it came from.
      const matches = sql`${docs.search} @@ ${tsquery}::tsquery`;
      const score = sql<number>`ts_rank(${RANK_WEIGHTS}::float4[], ${docs.search}, ${tsquery}::tsquery, ${RANK_NORMALIZATION})::float8`;
      const keyset =
        after === undefined ? undefined : or(sql`${score} < ${after[0]}::float8`, and(sql`${score} = ${after[0]}::float8`, gt(docs.docKey, sortKey(after[1]))));
      return db
        .select({ ...documentColumns, score })
        .from(docs)
        .where(and(eq(docs.projectId, projectId), matches, ...idFilter(filter), keyset))
        .orderBy(desc(score), asc(docs.docKey))
        .limit(limit);
    },
  };
}

/**
 * The knowledge port on PostgreSQL: the kernel's knowledge store over {@link createPostgresKnowledgeRows}.
 *
 * @example
 * const knowledge = createPostgresKnowledgeStore({ db, tables, clock, state: { closed: false } });
 */
export function createPostgresKnowledgeStore(context: PostgresStoreContext): KnowledgeStore {
  return createKnowledgeStore(createPostgresKnowledgeRows(context), postgresCall(context.state), context.clock);
}
