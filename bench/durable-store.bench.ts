// Durable session store benchmark (SES-1, issue 6 item 10, storage part). Run:
//   node --import tsx bench/durable-store.bench.ts
// Every figure is compared with a baseline measured in this same run; results go to
// bench/results/durable-store.json.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createMemorySessionStore } from "../src/adapters/driven/memory/memory-session-store.js";
import { createSqliteSessionStore } from "../src/adapters/driven/sqlite/sessions/sqlite-session-store.js";
import type { SessionStore } from "../src/ports/session-store.js";
import { EVENTS_PER_TURN, compactedState, turnBatches } from "./durable-store-events.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = mkdtempSync(join(tmpdir(), "sh-bench-durable-"));
const address = { projectId: "bench", sessionKey: "agent" };

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

async function runTurn(store: SessionStore, runId: string, turn: number): Promise<void> {
  for (const batch of turnBatches(runId, turn)) await store.append(batch);
  await store.readRun(runId);
}

/** (a) Per-turn append + read cost; kinds interleaved turn by turn so machine load hits all alike. */
async function perTurnCost(turns: number) {
  const kinds = {
    memory: createMemorySessionStore({ address }),
    sqlite: createSqliteSessionStore({ path: join(root, "a", "normal.sqlite"), address }),
    sqliteFull: createSqliteSessionStore({ path: join(root, "a", "full.sqlite"), address, synchronous: "full" }),
  };
  const times: Record<keyof typeof kinds, number[]> = { memory: [], sqlite: [], sqliteFull: [] };
  for (let turn = 0; turn < turns + 20; turn++) {
    for (const [name, store] of Object.entries(kinds) as Array<[keyof typeof kinds, SessionStore]>) {
      // One fsync per append makes full-sync turns ~50× slower; 40 of them give a stable median.
      if (name === "sqliteFull" && turn >= 60) continue;
      const start = performance.now();
      await runTurn(store, `run-${turn}`, turn);
      if (turn >= 20) times[name].push(performance.now() - start);
    }
  }
  await Promise.all(Object.values(kinds).map((store) => store.close()));
  const memoryMs = median(times.memory);
  const sqliteMs = median(times.sqlite);
  const sqliteFullMs = median(times.sqliteFull);
  return {
    turns,
    eventsPerTurn: EVENTS_PER_TURN,
    appendsPerTurn: turnBatches("x", 0).length,
    memoryMsPerTurn: round(memoryMs, 4),
    sqliteMsPerTurn: round(sqliteMs, 4),
    sqliteFullSyncMsPerTurn: round(sqliteFullMs, 4),
    sqliteVsMemory: round(sqliteMs / memoryMs, 2),
    sqliteFullSyncVsMemory: round(sqliteFullMs / memoryMs, 2),
  };
}

/** A session file with `turns` turns of history, a snapshot covering them, then one more turn. */
async function buildSession(name: string, turns: number): Promise<{ path: string; events: number }> {
  const path = join(root, "b", `${name}.sqlite`);
  const store = createSqliteSessionStore({ path, address });
  for (let turn = 0; turn < turns; turn++) {
    for (const batch of turnBatches(`run-${turn}`, turn)) await store.append(batch);
  }
  await store.putSnapshot({ atSeq: (await store.head()).lastSeq, state: compactedState(turns) });
  await runTurn(store, `run-${turns}`, turns);
  const events = (await store.head()).lastSeq;
  await store.close();
  return { path, events };
}

async function readPausedState(path: string): Promise<number> {
  const start = performance.now();
  const store = createSqliteSessionStore({ path, address });
  const head = await store.head();
  await store.readAfter(head.snapshot?.atSeq ?? 0);
  await store.close();
  return performance.now() - start;
}

/**
 * (b) Open + head + snapshot + events after it: 10 000 events of earlier history vs 100. Pairs
 * run back to back and the ratio is the median of per-pair ratios, so load spikes and GC pauses
 * of the busy machine hit one pair, not the figure.
 */
async function resumeCost(small: string, large: string, repeats: number) {
  const times = { small: [] as number[], large: [] as number[] };
  const ratios: number[] = [];
  for (let i = 0; i < repeats + 10; i++) {
    // Alternate which file goes first, so neither always follows the other's cache or GC work.
    const first = i % 2 === 0 ? small : large;
    const a = await readPausedState(first);
    const b = await readPausedState(first === small ? large : small);
    const [s, l] = first === small ? [a, b] : [b, a];
    if (i >= 10) {
      times.small.push(s);
      times.large.push(l);
      ratios.push(l / s);
    }
  }
  const smallMs = median(times.small);
  const largeMs = median(times.large);
  // What the snapshot saves: the same open reading the whole 10 000-event log instead.
  const replay: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    const store = createSqliteSessionStore({ path: large, address });
    await store.head();
    await store.readAfter(0);
    await store.close();
    replay.push(performance.now() - start);
  }
  const replayMs = median(replay);
  return {
    repeats,
    history100Ms: round(smallMs),
    history10000Ms: round(largeMs),
    ratio: round(median(ratios), 2),
    target: 1.5,
    fullReplay10000Ms: round(replayMs),
    snapshotSavesFactor: round(replayMs / largeMs, 1),
  };
}

/** (c) File bytes per 100 events, at three history lengths (linear growth expected). */
function fileBytes(files: Array<{ path: string; events: number }>) {
  return files.map(({ path, events }) => {
    const bytes = statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
    return { events, bytes, bytesPer100Events: Math.round((bytes / events) * 100) };
  });
}

type ReaderSample = { importMs: number; firstMs: number; firstCpuMs: number; secondMs: number; events: number };

function readerSample(path: string, mode: "store" | "raw"): ReaderSample {
  const out = execFileSync(process.execPath, ["--import", "tsx", join(here, "durable-store-reader.ts"), path, mode], { cwd: join(here, "..") });
  return JSON.parse(out.toString()) as ReaderSample;
}

/**
 * (d) Reading a paused session's state in a fresh process: the first open there (native addon
 * load included), against the same reads with better-sqlite3 alone in a fresh process (the floor
 * no SQLite store can beat), runs interleaved so machine load hits both alike.
 */
function freshProcessRead(path: string, runs: number) {
  const store: ReaderSample[] = [];
  const raw: ReaderSample[] = [];
  for (let i = 0; i < runs; i++) {
    store.push(readerSample(path, "store"));
    raw.push(readerSample(path, "raw"));
  }
  const firstMs = median(store.map((s) => s.firstMs));
  const rawMs = median(raw.map((s) => s.firstMs));
  return {
    runs,
    firstReadMedianMs: round(firstMs),
    firstReadMinMs: round(Math.min(...store.map((s) => s.firstMs))),
    // CPU time of the same read: what it costs on an idle core, whatever else loads the machine.
    firstReadCpuMedianMs: round(median(store.map((s) => s.firstCpuMs))),
    secondReadMedianMs: round(median(store.map((s) => s.secondMs))),
    rawSqliteFirstReadMedianMs: round(rawMs),
    rawSqliteFirstReadCpuMedianMs: round(median(raw.map((s) => s.firstCpuMs))),
    vsRawSqlite: round(firstMs / rawMs, 2),
    moduleImportMedianMs: round(median(store.map((s) => s.importMs)), 1),
    eventsAfterSnapshot: store[0]!.events,
  };
}

const started = performance.now();
try {
  const perTurn = await perTurnCost(150);
  const small = await buildSession("history-100", 10);
  const medium = await buildSession("history-1000", 100);
  const large = await buildSession("history-10000", 1000);
  const resume = await resumeCost(small.path, large.path, 200);
  const bytes = fileBytes([small, medium, large]);
  const fresh100 = freshProcessRead(small.path, 3);
  const fresh10000 = freshProcessRead(large.path, 3);
  const results = {
    bench: "durable-store",
    at: new Date().toISOString(),
    node: process.version,
    a_perTurn: perTurn,
    b_resume: resume,
    c_fileBytes: { files: bytes, growthPer100Events: bytes.map((b) => b.bytesPer100Events) },
    d_freshProcessRead: {
      history100: fresh100,
      history10000: fresh10000,
      ratio: round(fresh10000.firstReadMedianMs / fresh100.firstReadMedianMs, 2),
      // Diagnostic: this first read also loads the native addon. The issue's ≤ 5 ms target is
      // checked in bench/durable.bench.ts (D), in a process whose storage is already open.
      note: "includes loading the SQLite native addon; target checked in durable.json d_readPausedState",
    },
    totalSeconds: round((performance.now() - started) / 1000, 1),
  };
  mkdirSync(join(here, "results"), { recursive: true });
  writeFileSync(join(here, "results", "durable-store.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("durable-store bench");
  console.log(`(a) per turn (${EVENTS_PER_TURN} events, ${perTurn.appendsPerTurn} appends + readRun): memory ${perTurn.memoryMsPerTurn} ms, sqlite ${perTurn.sqliteMsPerTurn} ms (${perTurn.sqliteVsMemory}× memory), sqlite synchronous=full ${perTurn.sqliteFullSyncMsPerTurn} ms (${perTurn.sqliteFullSyncVsMemory}×)`);
  console.log(`(b) open + head + snapshot + tail: 100 events ${resume.history100Ms} ms, 10 000 events ${resume.history10000Ms} ms → ${resume.ratio}× (target ≤ 1.5×); replaying all 10 000 instead: ${resume.fullReplay10000Ms} ms (${resume.snapshotSavesFactor}× slower)`);
  console.log(`(c) bytes per 100 events: ${bytes.map((b) => `${b.events} events → ${b.bytesPer100Events}`).join(", ")}`);
  console.log(`(d) fresh process, first read: 100 events ${fresh100.firstReadMedianMs} ms (min ${fresh100.firstReadMinMs}), 10 000 events ${fresh10000.firstReadMedianMs} ms (min ${fresh10000.firstReadMinMs}) → ${results.d_freshProcessRead.ratio}× (native addon load included; the 5 ms target is checked in durable.bench.ts D); CPU ${fresh100.firstReadCpuMedianMs} / ${fresh10000.firstReadCpuMedianMs} ms; better-sqlite3 alone ${fresh100.rawSqliteFirstReadMedianMs} / ${fresh10000.rawSqliteFirstReadMedianMs} ms → store ${fresh100.vsRawSqlite}× / ${fresh10000.vsRawSqlite}× the raw floor`);
  console.log(`    second read in that process: ${fresh100.secondReadMedianMs} / ${fresh10000.secondReadMedianMs} ms`);
  console.log(`written bench/results/durable-store.json in ${results.totalSeconds} s`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
