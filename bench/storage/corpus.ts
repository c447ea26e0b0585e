// Deterministic synthetic data for the storage benchmark: a Zipf-ish vocabulary so that some
// words are common and the query words match a few percent of the corpus, like real notes.
import type Database from "better-sqlite3";
import { sortKey } from "../../src/adapters/driven/kernel/sort-key.js";

/** A small deterministic PRNG (mulberry32), so every run builds the same corpus. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po", "da", "fu", "gi", "he", "ju"];

/** `size` distinct pseudo-words. */
export function vocabulary(size: number): string[] {
  const words: string[] = [];
  for (let i = 0; words.length < size; i++) {
    let n = i;
    let word = "";
    do {
      word += SYLLABLES[n % SYLLABLES.length];
      n = Math.floor(n / SYLLABLES.length);
    } while (n > 0);
    words.push(`${word}x`);
  }
  return words;
}

/** Picks a word with probability ∝ 1/rank (Zipf, s = 1). */
export function zipfPicker(words: string[], next: () => number): () => string {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= words.length; rank++) cumulative.push((total += 1 / rank));
  return () => {
    const target = next() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (cumulative[mid] < target) low = mid + 1;
      else high = mid;
    }
    return words[low];
  };
}

/**
 * Inserts `count` documents into the store's `knowledge_documents` table (the FTS triggers index
 * them) in one transaction, through a raw connection, because building the corpus is setup.
 */
export function buildCorpus(raw: Database.Database, projectId: string, count: number, words: string[]): void {
  const next = random(42);
  const pick = zipfPicker(words, next);
  const insert = raw.prepare(
    `INSERT INTO knowledge_documents (project_id, doc_key, document_id, title, markdown, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  raw.transaction(() => {
    for (let i = 0; i < count; i++) {
      const id = `doc-${String(i).padStart(6, "0")}`;
      const title = `${pick()} ${pick()} ${pick()}`;
      const length = 20 + Math.floor(next() * 40);
      const body: string[] = [];
      for (let w = 0; w < length; w++) body.push(pick());
      insert.run(projectId, sortKey(id), id, title, `# ${title}\n\n${body.join(" ")}.`, i, i);
    }
  })();
}
