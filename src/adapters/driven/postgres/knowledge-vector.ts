/**
 * PostgreSQL full-text input built from the domain's own tokenizer (`searchTerms`), so the
 * PostgreSQL store matches exactly what the memory and SQLite stores match: the same folding of
 * case and Latin diacritics, the same split on anything that is not a letter or number (CJK runs,
 * Cyrillic, Greek… included), no stemming, no stop words. PostgreSQL's own parsers would differ
 * (`to_tsvector('simple', …)` keeps diacritics and splits hyphenated words and URLs its own way).
 *
 * The lexemes go in as `tsvector` / `tsquery` input text, passed as query parameters.
 */
import { searchTerms } from "../../../domain/search-terms.js";

// PostgreSQL's tsvector limits: a lexeme is at most 2047 bytes, all lexemes together under 1 MiB,
// positions run 1..16383 and a lexeme keeps at most 256 of them.
const MAX_LEXEME_BYTES = 2047;
const MAX_LEXEMES_BYTES = 1_000_000;
const MAX_POSITION = 16_383;
const MAX_POSITIONS = 255;

/** tsvector/tsquery input quoting: inside single quotes, `'` and `\` are escaped. */
const quote = (term: string): string => `'${term.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/** True when PostgreSQL can hold `term` as a lexeme. */
const indexable = (term: string): boolean => Buffer.byteLength(term) <= MAX_LEXEME_BYTES;

/**
 * The `tsvector` input text of a document: each term of the title with weight A, each term of the
 * body with the default weight D, positions counted over title then body. Terms over PostgreSQL's
 * lexeme size are left out (such a word is not searchable here); past 1 MB of distinct lexemes
 * later new words are left out too.
 *
 * @example
 * documentVector("Zebra facts", "the zebra"); // "'zebra':1A,4 'facts':2A 'the':3"
 */
export function documentVector(title: string, markdown: string): string {
  const lexemes = new Map<string, string[]>();
  let bytes = 0;
  let position = 0;
  const add = (text: string, weight: "A" | "") => {
    for (const term of searchTerms(text)) {
      position = Math.min(position + 1, MAX_POSITION);
      let positions = lexemes.get(term);
      if (!positions) {
        if (!indexable(term) || bytes + Buffer.byteLength(term) > MAX_LEXEMES_BYTES) continue;
        bytes += Buffer.byteLength(term);
        lexemes.set(term, (positions = []));
      }
      // Positions past the limit collapse onto the last one; PostgreSQL keeps distinct ones only.
      const entry = `${position}${weight}`;
      if (positions.length < MAX_POSITIONS && positions[positions.length - 1] !== entry) positions.push(entry);
    }
  };
  add(title, "A");
  add(markdown, "");
  return [...lexemes].map(([term, positions]) => `${quote(term)}:${positions.join(",")}`).join(" ");
}

/**
 * The `tsquery` input text requiring every term (`'a' & 'b'`), or `null` when some term cannot be
 * a lexeme (then no document can match).
 *
 * @example
 * allTermsQuery(["zebra", "lion"]); // "'zebra' & 'lion'"
 */
export function allTermsQuery(terms: string[]): string | null {
  if (!terms.every(indexable)) return null;
  return terms.map(quote).join(" & ");
}
