import type { KnowledgeMatch, KnowledgeSearch } from "../../kernel/knowledge-store.js";
import type { Sql } from "../../kernel/sql-driver.js";

/**
 * The knowledge search on SQLite: full-text search through the FTS5 table `knowledge_fts` (kept
 * in step with `knowledge_documents` by triggers) ranked by bm25.
 *
 * @example
 * const knowledge = createKnowledgeStore(driver, sqliteCall(state), sqliteFullText);
 */
export const sqliteFullText: KnowledgeSearch = {
  search: ({ db, tables: { knowledgeDocuments: docs }, ops: { and, inArray, sql } }, documentColumns) =>
    (terms, where, limit) => {
      // FTS5 MATCH and bm25() have no drizzle builder, hence the sql template. Terms hold only
      // letters and digits, so quoting each makes a safe all-terms (implicit AND) query.
      const match = terms.map((term) => `"${term}"`).join(" ");
      const score = sql`(-bm25(knowledge_fts))`;
      const conditions = and(sql`knowledge_fts MATCH ${match}`, ...where(score));
      // One read transaction: the ranking and the page's rows come from the same snapshot.
      return db.transaction((tx: Sql) => {
        // CROSS JOIN keeps the FTS index as the outer loop (SQLite's join-order hint).
        const hits: { id: number; score: number }[] = tx.all(sql`
          SELECT ${docs.id} AS id, ${score} AS score
          FROM knowledge_fts CROSS JOIN ${docs} ON ${docs.id} = knowledge_fts.rowid
          WHERE ${conditions}
          ORDER BY score DESC, ${docs.docKey} ASC
          LIMIT ${limit}`);
        const found = hits.length === 0 ? [] : tx.select({ id: docs.id, ...documentColumns }).from(docs).where(inArray(docs.id, hits.map((hit) => hit.id))).all();
        const byRowId = new Map<number, KnowledgeMatch>(found.map(({ id, ...doc }: { id: number }) => [id, doc]));
        return hits.map((hit): KnowledgeMatch => ({ ...byRowId.get(hit.id)!, score: hit.score }));
      });
    },
};
