import { and, asc, desc, sql } from "drizzle-orm";
import type { KnowledgeSearch } from "../kernel/knowledge-store.js";
import { allTermsQuery, documentVector } from "./knowledge-vector.js";

/**
 * `ts_rank` weights in {D, C, B, A} order: body terms (D) count half as much as title terms (A).
 * PostgreSQL refuses weights above 1.
 */
const RANK_WEIGHTS = "{0.5,0.5,0.5,1.0}";
/** `ts_rank` normalization 1: divide by 1 + log(document length), so long bodies do not win by bulk. */
const RANK_NORMALIZATION = 1;

/**
 * The knowledge search on PostgreSQL: documents in `knowledge_documents` with a `tsvector` column
 * (GIN-indexed) built from the domain's tokenizer (see `knowledge-vector.ts`), searched with
 * `@@` and ranked by `ts_rank`.
 *
 * @example
 * const knowledge = createKnowledgeStore(driver, postgresCall(state), postgresFullText);
 */
export const postgresFullText: KnowledgeSearch = {
  indexed: (title, markdown) => ({ search: documentVector(title, markdown) }),
  search: ({ db, tables: { knowledgeDocuments: docs } }, documentColumns) =>
    async (terms, where, limit) => {
      // A term too long to be a lexeme cannot match anything.
      const tsquery = allTermsQuery(terms);
      if (tsquery === null) return [];
      // `@@`, ts_rank and the tsquery cast have no drizzle builder, hence the sql templates; the
      // query text and weights are parameters. float8 makes the score a JS number exactly, so a
      // cursor's score compares equal to the row it came from.
      const matches = sql`${docs.search} @@ ${tsquery}::tsquery`;
      const score = sql<number>`ts_rank(${RANK_WEIGHTS}::float4[], ${docs.search}, ${tsquery}::tsquery, ${RANK_NORMALIZATION})::float8`;
      return db
        .select({ ...documentColumns, score })
        .from(docs)
        .where(and(matches, ...where(score)))
        .orderBy(desc(score), asc(docs.docKey))
        .limit(limit);
    },
};
