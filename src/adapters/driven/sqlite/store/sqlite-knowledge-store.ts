import type { KnowledgeStore } from "../../../../ports/knowledge-store.js";
import { createKnowledgeStore, knowledgeConditions, type KnowledgeMatch, type KnowledgeRows } from "../../kernel/knowledge-store.js";
import { sortKey } from "../../kernel/sort-key.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { storeTables } from "./schema.js";
import type { SqliteStoreContext } from "./sqlite-kv-store.js";
import { sqliteCall } from "./sqlite-support.js";

/**
 * The knowledge rows on SQLite: documents in `knowledge_documents`, full-text search through the
 * FTS5 table `knowledge_fts` (kept in step by triggers) ranked by bm25; pages continue by keyset
 * on the (project_id, doc_key) unique index, never OFFSET.
 *
 * @example
 * const rows = createSqliteKnowledgeRows(db);
 */
export function createSqliteKnowledgeRows(db: SqliteStoreContext["db"]): KnowledgeRows {
  const { and, asc, eq, gt, inArray, or, sql } = drizzleOrm();
  const { knowledgeDocuments: docs } = storeTables();
  const summaryColumns = { documentId: docs.documentId, title: docs.title, createdAt: docs.createdAt, updatedAt: docs.updatedAt };
  const documentColumns = { ...summaryColumns, markdown: docs.markdown };
  const { byId, idFilter, page } = knowledgeConditions(drizzleOrm(), docs.projectId, docs.docKey);

  return {
    upsert: (projectId, input, now) =>
      db
        .insert(docs)
        .values({ projectId, docKey: sortKey(input.documentId), ...input, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: [docs.projectId, docs.docKey], set: { title: input.title, markdown: input.markdown, updatedAt: now } })
        .returning(documentColumns)
        .get(),
    get: (projectId, documentId) => db.select(documentColumns).from(docs).where(byId(projectId, documentId)).get(),
    delete: (projectId, documentId) => db.delete(docs).where(byId(projectId, documentId)).run().changes > 0,
    list: (projectId, { filter, after, limit }) => db.select(summaryColumns).from(docs).where(page(projectId, filter, after)).orderBy(asc(docs.docKey)).limit(limit).all(),
    search(projectId, terms, { filter, after, limit }) {
      // FTS5 MATCH and bm25() have no drizzle builder, hence the sql template. Terms hold only
      // letters and digits, so quoting each makes a safe all-terms (implicit AND) query.
      const match = terms.map((term) => `"${term}"`).join(" ");
      const score = sql`(-bm25(knowledge_fts))`;
      const conditions = and(
        sql`knowledge_fts MATCH ${match}`,
        eq(docs.projectId, projectId),
        ...idFilter(filter),
        after === undefined ? undefined : or(sql`${score} < ${after[0]}`, and(sql`${score} = ${after[0]}`, gt(docs.docKey, sortKey(after[1])))),
      );
      // One read transaction: the ranking and the page's rows come from the same snapshot.
      return db.transaction((tx) => {
        // CROSS JOIN keeps the FTS index as the outer loop (SQLite's join-order hint).
        const hits = tx.all<{ id: number; score: number }>(sql`
          SELECT ${docs.id} AS id, ${score} AS score
          FROM knowledge_fts CROSS JOIN ${docs} ON ${docs.id} = knowledge_fts.rowid
          WHERE ${conditions}
          ORDER BY score DESC, ${docs.docKey} ASC
          LIMIT ${limit}`);
        const found = hits.length === 0 ? [] : tx.select({ id: docs.id, ...documentColumns }).from(docs).where(inArray(docs.id, hits.map((hit) => hit.id))).all();
        const byRowId = new Map(found.map(({ id, ...doc }) => [id, doc]));
        return hits.map((hit): KnowledgeMatch => ({ ...byRowId.get(hit.id)!, score: hit.score }));
      });
    },
  };
}

/**
 * The knowledge port on SQLite: the kernel's knowledge store over {@link createSqliteKnowledgeRows}.
 *
 * @example
 * const knowledge = createSqliteKnowledgeStore({ db, clock, state: { closed: false } });
 */
export function createSqliteKnowledgeStore({ db, clock, state }: SqliteStoreContext): KnowledgeStore {
  return createKnowledgeStore(createSqliteKnowledgeRows(db), sqliteCall(state), clock);
}
