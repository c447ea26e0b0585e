// Storage benchmark (issue 2, item 10): the SQLite adapter against raw better-sqlite3 prepared
// statements doing the same work, measured in one run. Writes bench/results/storage.json.
//   node --import tsx bench/storage.bench.ts
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { STORE_DATABASE_FILE } from "../src/adapters/driven/sqlite/store/sqlite-database.js";
import { sortKey } from "../src/adapters/driven/kernel/sort-key.js";
import type { JsonValue } from "../src/domain/json.js";
import { buildCorpus, vocabulary } from "./storage/corpus.js";

const KV_OPS = 6_000;
const KV_ROUNDS = 12;
const GET_PASSES = 3;
const CORPUS = 100_000;
const SEARCH_ROUNDS = 10;
const LIST_ENTRIES = 10_000;
const PAGE = 50;
const LIST_ROUNDS = 200;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

async function timeAsync(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/**
 * The raw baseline: hand-written better-sqlite3 prepared statements on a database with the same
 * schema and pragmas (a second store directory), so both sides store identical rows.
 */
async function rawKv(directory: string) {
  await createSqliteStorage({ directory }).close();
  const raw = new Database(join(directory, STORE_DATABASE_FILE));
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = NORMAL");
  const set = raw.prepare(`INSERT INTO kv_entries (project_id, conversation_id, key, value, updated_at)
    VALUES (?, '', ?, ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
  const get = raw.prepare("SELECT value, updated_at FROM kv_entries WHERE project_id = ? AND conversation_id = '' AND key = ?");
  return { raw, set, get };
}

async function benchKv(directory: string) {
  const storage = createSqliteStorage({ directory: join(directory, "kv") });
  const raw = await rawKv(join(directory, "kv-raw"));
  const ns = { projectId: "bench" };
  const key = (i: number): string => `key-${String(i).padStart(6, "0")}`;
  const value = (i: number): JsonValue => ({ i, text: "some value text", tags: ["a", "b"] });
  // Raw and adapter run in short alternating rounds (who goes first alternates too), and the
  // ratio is the median of per-round ratios, so load swings on a shared machine hit both alike.
  const setRounds = { raw: [] as number[], adapter: [] as number[] };
  const getRounds = { raw: [] as number[], adapter: [] as number[] };
  const perRound = KV_OPS / KV_ROUNDS;
  const rawSetRound = (from: number) => async () => {
    for (let i = from; i < from + perRound; i++) raw.set.run("bench", sortKey(key(i)), JSON.stringify(value(i)), Date.now());
  };
  const adapterSetRound = (from: number) => async () => {
    for (let i = from; i < from + perRound; i++) await storage.kv.set(ns, key(i), value(i));
  };
  const rawGetRound = (from: number) => async () => {
    for (let i = from; i < from + perRound; i++) {
      const row = raw.get.get("bench", sortKey(key((i * 7919) % KV_OPS))) as { value: string; updated_at: number };
      JSON.parse(row.value);
    }
  };
  const adapterGetRound = (from: number) => async () => {
    for (let i = from; i < from + perRound; i++) await storage.kv.get(ns, key((i * 7919) % KV_OPS));
  };
  async function pair(rounds: { raw: number[]; adapter: number[] }, r: number, rawRun: () => Promise<void>, adapterRun: () => Promise<void>) {
    if (r % 2 === 0) {
      rounds.raw.push(await timeAsync(rawRun));
      rounds.adapter.push(await timeAsync(adapterRun));
    } else {
      rounds.adapter.push(await timeAsync(adapterRun));
      rounds.raw.push(await timeAsync(rawRun));
    }
  }
  for (let r = 0; r < KV_ROUNDS; r++) await pair(setRounds, r, rawSetRound(r * perRound), adapterSetRound(r * perRound));
  for (let pass = 0; pass < GET_PASSES; pass++) {
    for (let r = 0; r < KV_ROUNDS; r++) await pair(getRounds, r + pass, rawGetRound(r * perRound), adapterGetRound(r * perRound));
  }
  const summary = (rounds: { raw: number[]; adapter: number[] }) => {
    const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
    const ops = rounds.raw.length * perRound;
    return {
      adapterOpsPerSec: round((ops / sum(rounds.adapter)) * 1000, 0),
      rawOpsPerSec: round((ops / sum(rounds.raw)) * 1000, 0),
      ratio: round(median(rounds.raw.map((rawMs, i) => rawMs / rounds.adapter[i]))),
      target: ">= 0.5",
    };
  };
  raw.raw.close();
  await storage.close();
  return { set: summary(setRounds), get: summary(getRounds), ratioIs: "median over rounds of raw time / adapter time" };
}

async function benchSearch(directory: string) {
  const storageDir = join(directory, "search");
  const storage = createSqliteStorage({ directory: storageDir });
  const raw = new Database(join(storageDir, STORE_DATABASE_FILE));
  const words = vocabulary(5_000);
  const buildStart = performance.now();
  buildCorpus(raw, "bench", CORPUS, words);
  const buildMs = performance.now() - buildStart;
  // The same work by hand: FTS5 match, project filter, bm25 order with id tie-break, a page of
  // summaries, then the page's bodies for snippets.
  const rawSearch = raw.prepare(`SELECT d.id, d.document_id, d.title, d.created_at, d.updated_at, -bm25(knowledge_fts) AS score
    FROM knowledge_fts CROSS JOIN knowledge_documents d ON d.id = knowledge_fts.rowid
    WHERE knowledge_fts MATCH ? AND d.project_id = ? ORDER BY score DESC, d.doc_key LIMIT ?`);
  const rawBody = raw.prepare("SELECT markdown FROM knowledge_documents WHERE id = ?");
  const ftsOnly = raw.prepare("SELECT rowid, bm25(knowledge_fts) FROM knowledge_fts WHERE knowledge_fts MATCH ? ORDER BY rank LIMIT ?");
  const queries = [[words[15]], [words[60]], [words[200]], [words[30], words[90]], [words[8], words[400]]];
  const adapterTimes: number[] = [];
  const rawTimes: number[] = [];
  const ftsOnlyTimes: number[] = [];
  let hits = 0;
  const runRaw = (match: string) => async () => {
    const rows = rawSearch.all(match, "bench", PAGE + 1) as Array<{ id: number }>;
    for (const row of rows.slice(0, PAGE)) rawBody.get(row.id);
  };
  const runAdapter = (terms: string[]) => async () => {
    hits += (await storage.knowledge.search("bench", terms.join(" "), { limit: PAGE })).items.length;
  };
  // Warm the page cache for both, then alternate who goes first so neither profits from the other.
  for (const terms of queries) {
    await runRaw(terms.map((t) => `"${t}"`).join(" "))();
    await runAdapter(terms)();
  }
  for (let r = 0; r < SEARCH_ROUNDS; r++) {
    for (const terms of queries) {
      const match = terms.map((t) => `"${t}"`).join(" ");
      if (r % 2 === 0) {
        rawTimes.push(await timeAsync(runRaw(match)));
        adapterTimes.push(await timeAsync(runAdapter(terms)));
      } else {
        adapterTimes.push(await timeAsync(runAdapter(terms)));
        rawTimes.push(await timeAsync(runRaw(match)));
      }
      ftsOnlyTimes.push(await timeAsync(async () => ftsOnly.all(match, PAGE)));
    }
  }
  const matches = queries.map((terms) => (raw.prepare("SELECT count(*) AS n FROM knowledge_fts WHERE knowledge_fts MATCH ?")
    .get(terms.map((t) => `"${t}"`).join(" ")) as { n: number }).n);
  raw.close();
  await storage.close();
  const p50 = median(adapterTimes);
  const rawP50 = median(rawTimes);
  return {
    documents: CORPUS,
    corpusBuildMs: round(buildMs, 0),
    matchesPerQuery: matches,
    hitsReturned: hits,
    adapterP50Ms: round(p50),
    rawP50Ms: round(rawP50),
    ratio: round(p50 / rawP50),
    target: "<= 1.5",
    ftsOnlyTopKP50Ms: round(median(ftsOnlyTimes)),
  };
}

async function benchListing(directory: string) {
  const storage = createSqliteStorage({ directory: join(directory, "list") });
  const ns = { projectId: "bench" };
  const raw2 = new Database(join(directory, "list", STORE_DATABASE_FILE));
  // Setup through the store's own table in one transaction.
  const insert = raw2.prepare("INSERT INTO kv_entries VALUES (?, '', ?, ?, ?)");
  raw2.transaction(() => {
    for (let i = 0; i < LIST_ENTRIES; i++) insert.run("bench", sortKey(`item-${String(i).padStart(6, "0")}`), `{"i":${i}}`, i);
  })();
  raw2.close();
  const cursors: Array<string | null> = [null];
  for (let page = 1; page < LIST_ENTRIES / PAGE; page++) {
    cursors.push((await storage.kv.list(ns, { limit: PAGE, cursor: cursors[page - 1] })).nextCursor);
  }
  const firstTimes: number[] = [];
  const lastTimes: number[] = [];
  for (let r = 0; r < LIST_ROUNDS; r++) {
    firstTimes.push(await timeAsync(() => storage.kv.list(ns, { limit: PAGE })));
    lastTimes.push(await timeAsync(() => storage.kv.list(ns, { limit: PAGE, cursor: cursors[cursors.length - 1] })));
  }
  const lastPage = await storage.kv.list(ns, { limit: PAGE, cursor: cursors[cursors.length - 1] });
  await storage.close();
  const page1 = median(firstTimes);
  const page200 = median(lastTimes);
  return {
    entries: LIST_ENTRIES,
    pageSize: PAGE,
    page200Items: lastPage.items.length,
    page200IsLast: lastPage.nextCursor === null,
    page1P50Ms: round(page1),
    page200P50Ms: round(page200),
    ratio: round(page200 / page1),
    target: "<= 2",
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const directory = mkdtempSync(join(tmpdir(), "steamharness-bench-"));
  try {
    const kv = await benchKv(directory);
    console.log(`kv set   adapter/raw = ${kv.set.ratio}  (${kv.set.adapterOpsPerSec} vs ${kv.set.rawOpsPerSec} ops/s, target >= 0.5)`);
    console.log(`kv get   adapter/raw = ${kv.get.ratio}  (${kv.get.adapterOpsPerSec} vs ${kv.get.rawOpsPerSec} ops/s, target >= 0.5)`);
    const listing = await benchListing(directory);
    console.log(`list     page200/page1 = ${listing.ratio}  (${listing.page200P50Ms} vs ${listing.page1P50Ms} ms p50, target <= 2)`);
    const search = await benchSearch(directory);
    console.log(`search   adapter/raw p50 = ${search.ratio}  (${search.adapterP50Ms} vs ${search.rawP50Ms} ms over ${CORPUS} docs, target <= 1.5)`);
    const results = {
      benchmark: "storage",
      generatedAt: new Date().toISOString(),
      environment: { node: process.version, cpus: cpus().length, loadavg: loadavg().map((n) => round(n, 2)) },
      kv,
      listing,
      search,
      pass: {
        kvSet: kv.set.ratio >= 0.5,
        kvGet: kv.get.ratio >= 0.5,
        search: search.ratio <= 1.5,
        listing: listing.ratio <= 2,
      },
      totalSeconds: round((performance.now() - started) / 1000, 1),
    };
    const out = join(dirname(fileURLToPath(import.meta.url)), "results", "storage.json");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`wrote ${out} in ${results.totalSeconds} s`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
