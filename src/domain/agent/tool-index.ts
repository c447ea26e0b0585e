import { bm25, searchTerms, type TermStats } from "../search-terms.js";

/** One searchable tool of a catalog (EXT-3): its name, description and catalog. */
export interface ToolIndexEntry {
  name: string;
  description: string;
  catalog: string;
  /** The catalog's own description; weakly searched with every tool of the catalog. */
  catalogDescription?: string;
}

/** A ranked search hit. */
export interface ToolIndexHit {
  entry: ToolIndexEntry;
  score: number;
}

/** The search index over catalog tools. Built once per run; pure. */
export interface ToolIndex {
  readonly size: number;
  /** The best `limit` tools for a query, best first; ties keep catalog order. Empty for no match. */
  search(query: string, limit: number): ToolIndexHit[];
}

// Words that say nothing about which tool fits a task.
const STOP = new Set("a an and are as at be by can do does for from get give how i in into is it its me my of on or our please should show so some that the their them then there this to up use using want we what when where which who will with you your".split(" "));

/**
 * A light suffix stemmer: enough to let "invoices"/"invoice", "created"/"create",
 * "listing"/"list" meet, without a dictionary (tool descriptions are short).
 */
function stem(term: string): string {
  // Twice, so "orders" → "order" → "ord" meets "order" → "ord".
  return stripSuffix(stripSuffix(term));
}

function stripSuffix(term: string): string {
  if (term.length <= 3 || /\d/.test(term)) return term;
  for (const [suffix, replacement] of [["ies", "y"], ["sses", "ss"], ["ing", ""], ["ed", ""], ["es", ""], ["s", ""], ["ly", ""], ["ion", ""], ["ment", ""], ["er", ""], ["e", ""]] as const) {
    if (term.endsWith(suffix) && term.length - suffix.length >= 3 && !(suffix === "s" && term.endsWith("ss"))) return term.slice(0, term.length - suffix.length) + replacement;
  }
  return term;
}

/**
 * The terms of a text for tool search: snake_case, kebab-case, dots and camelCase split into
 * words (so `crm.createContact` and "create a contact" share terms), stop words dropped, stemmed.
 *
 * @example
 * toolTerms("github_createPullRequest") // ["github", "creat", "pull", "request"]
 */
export function toolTerms(text: string): string[] {
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_.\-/:]+/g, " ");
  return searchTerms(spaced).filter((term) => !STOP.has(term)).map(stem);
}

const count = (terms: string[]): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
};

/**
 * Builds a BM25 index (Okapi, k1 = 1.2, b = 0.75: {@link bm25}) over tools' names, descriptions
 * and catalog descriptions. The name's terms count twice: a query word that names the tool is a
 * stronger signal than one its description mentions in passing.
 *
 * @example
 * const index = buildToolIndex([{ name: "send_invoice", description: "Email an invoice to a customer", catalog: "billing" }]);
 * index.search("bill the customer by email", 3)[0]?.entry.name // "send_invoice"
 */
export function buildToolIndex(entries: readonly ToolIndexEntry[]): ToolIndex {
  const docs: Array<{ entry: ToolIndexEntry; stats: TermStats }> = entries.map((entry) => {
    const name = toolTerms(entry.name);
    const columns = [count([...name, ...name]), count(toolTerms(entry.description)), count(toolTerms(entry.catalogDescription ?? ""))];
    let length = 0;
    for (const column of columns) for (const n of column.values()) length += n;
    return { entry, stats: { columns, length } };
  });
  const hits = new Map<string, number>();
  for (const doc of docs) {
    const seen = new Set<string>();
    for (const column of doc.stats.columns) for (const term of column.keys()) seen.add(term);
    for (const term of seen) hits.set(term, (hits.get(term) ?? 0) + 1);
  }
  const averageLength = docs.reduce((sum, doc) => sum + doc.stats.length, 0) / Math.max(1, docs.length);
  const corpus = { documents: docs.length, averageLength, hits };
  return {
    size: docs.length,
    search(query, limit) {
      const terms = [...new Set(toolTerms(query))];
      if (terms.length === 0 || limit <= 0) return [];
      return docs
        .map((doc, order) => ({ entry: doc.entry, score: bm25(terms, doc.stats, corpus), order }))
        .filter((hit) => hit.score > 0)
        .sort((a, b) => b.score - a.score || a.order - b.order)
        .slice(0, limit)
        .map(({ entry, score }) => ({ entry, score }));
    },
  };
}
