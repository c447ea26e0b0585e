/**
 * Splits text into search terms the way SQLite FTS5's default `unicode61` tokenizer does:
 * letters, numbers and private-use characters form tokens, everything else separates them;
 * case and Latin diacritics are folded. The memory adapter ranks with the same terms, so both
 * adapters agree on what matches.
 *
 * @example
 * searchTerms("Crème brûlée, 2 ways!"); // ["creme", "brulee", "2", "ways"]
 */
export function searchTerms(text: string): string[] {
  const folded = text.normalize("NFD").replace(/\p{Mn}/gu, "").toLowerCase();
  return folded.match(/[\p{L}\p{N}\p{Co}]+/gu) ?? [];
}

/**
 * The distinct terms of a query, in first-seen order.
 *
 * @example
 * queryTerms("cat CAT dog"); // ["cat", "dog"]
 */
export function queryTerms(query: string): string[] {
  return [...new Set(searchTerms(query))];
}

/** Per-document term statistics used for BM25 ranking. */
export interface TermStats {
  /** Term → occurrences, per column (title, body). */
  columns: Array<Map<string, number>>;
  /** Total number of tokens over all columns. */
  length: number;
}

/**
 * Term statistics of a document's columns.
 *
 * @example
 * termStats(["Title", "body text"]).length; // 3
 */
export function termStats(columns: string[]): TermStats {
  let length = 0;
  const maps = columns.map((text) => {
    const counts = new Map<string, number>();
    for (const term of searchTerms(text)) {
      counts.set(term, (counts.get(term) ?? 0) + 1);
      length++;
    }
    return counts;
  });
  return { columns: maps, length };
}

/**
 * Okapi BM25 exactly as FTS5's `bm25()` computes it (k1 = 1.2, b = 0.75, column frequencies
 * summed with weight 1, IDF floored at 1e-6), but positive: higher is better.
 *
 * @example
 * bm25(["cat"], stats, { documents: 10, averageLength: 20, hits: new Map([["cat", 2]]) });
 */
export function bm25(
  terms: string[],
  doc: TermStats,
  corpus: { documents: number; averageLength: number; hits: Map<string, number> },
): number {
  const k1 = 1.2;
  const b = 0.75;
  let score = 0;
  for (const term of terms) {
    const hits = corpus.hits.get(term) ?? 0;
    let idf = Math.log((corpus.documents - hits + 0.5) / (hits + 0.5));
    if (idf <= 0) idf = 1e-6;
    let freq = 0;
    for (const column of doc.columns) freq += column.get(term) ?? 0;
    score += (idf * freq * (k1 + 1)) / (freq + k1 * (1 - b + (b * doc.length) / corpus.averageLength));
  }
  return score;
}

const SNIPPET_RADIUS = 60;
const ASCII = /^[\x00-\x7f]*$/;

/**
 * A short plain-text window of the body (or, failing that, the title) around the first
 * occurrence of a query term, with "…" where text was cut. Both adapters use it, so snippets
 * read the same whatever the backend.
 *
 * @example
 * plainSnippet({ title: "Zoo", markdown: "… the zebra sleeps …" }, ["zebra"]);
 */
export function plainSnippet(doc: { title: string; markdown: string }, terms: string[]): string {
  for (const text of [doc.markdown, doc.title]) {
    // ASCII text needs no Unicode folding (the common case, and much cheaper).
    const folded = ASCII.test(text) ? text.toLowerCase() : text.normalize("NFD").replace(/\p{Mn}/gu, "").toLowerCase();
    // Folding may change lengths; only use the found index when it did not.
    if (folded.length !== text.length) continue;
    for (const term of terms) {
      const at = folded.indexOf(term);
      if (at < 0) continue;
      const start = Math.max(0, at - SNIPPET_RADIUS);
      const end = Math.min(text.length, at + term.length + SNIPPET_RADIUS);
      const body = text.slice(start, end).replace(/\s+/g, " ").trim();
      return `${start > 0 ? "…" : ""}${body}${end < text.length ? "…" : ""}`;
    }
  }
  const head = (doc.markdown || doc.title).replace(/\s+/g, " ").trim();
  return head.length > 2 * SNIPPET_RADIUS ? `${head.slice(0, 2 * SNIPPET_RADIUS)}…` : head;
}
