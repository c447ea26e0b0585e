// Time-travel benchmark (issue 46, FORK-1): forking a session at 10, 1,000 and 10,000 events, p50,
// on SQLite and PostgreSQL (STEAMHARNESS_TEST_POSTGRES_URL; skipped without it), beside raw
// better-sqlite3 doing the same copy (attach + one INSERT … SELECT) in the same run. Goals: flat,
// ≤ 5 ms p50 on SQLite, ≤ 15 ms on PostgreSQL. Run: npm run bench -- timetravel
// Results: bench/results/timetravel.json.
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { createPostgresSessionBackend } from "../src/adapters/driven/postgres/sessions/postgres-session-backend.js";
import { resolveSessionDatabasePath } from "../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { createSqliteSessionBackend } from "../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { forkSession } from "../src/app/time-travel/fork-session.js";
import type { SessionBackend } from "../src/ports/session-backend.js";
import type { SessionAddress } from "../src/ports/session-store.js";
import { turnBatches } from "./durable-store-events.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = mkdtempSync(join(tmpdir(), "sh-bench-timetravel-"));
const SIZES = [10, 1_000, 10_000];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25);

const p50 = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number): number => Number(value.toFixed(3));

/** A session of `events` events (10 per turn: a tool call, its result, usage), written turn by turn. */
async function seed(sessions: SessionBackend, address: SessionAddress, events: number): Promise<void> {
  const store = (await sessions.openUnleased({ address, create: true }))!;
  for (let turn = 0; turn < events / 10; turn++) await store.append(turnBatches(`run-${turn}`, turn).flat());
  await store.close();
}

/** CPU ms of this process per fork, p50 by size (added beside the wall-time p50, which stays as defined: on a loaded machine CPU time compares runs better). */
const forkCpu: Record<string, Record<string, number>> = {};

/** p50 of forkSession at the head of a session of each size (the whole history copied: the worst point). */
async function forkTimes(sessions: SessionBackend, conversation: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const cpuOut: Record<string, number> = (forkCpu[conversation] = {});
  for (const size of SIZES) {
    const from = { projectId: "bench", conversationId: `${conversation}-${size}`, sessionKey: "agent" };
    await seed(sessions, from, size);
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < ROUNDS + 3; i++) {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const fork = await forkSession({ sessions, from, at: { seq: size } });
      const ms = performance.now() - started;
      const used = process.cpuUsage(cpuBefore);
      if (fork.atSeq !== size) throw new Error("fork point");
      if (i >= 3) {
        times.push(ms);
        cpu.push((used.user + used.system) / 1000);
      }
    }
    out[String(size)] = round(p50(times));
    cpuOut[String(size)] = round(p50(cpu));
  }
  return out;
}

/** The same copy with raw better-sqlite3: a new file with the parent's table, attach, one INSERT … SELECT. */
function rawSqliteTimes(agentStoreDir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const size of SIZES) {
    const parent = resolveSessionDatabasePath({ agentStoreDir, conversationId: `sqlite-${size}`, sessionKey: "agent" });
    const source = new Database(parent, { readonly: true });
    const ddl = (source.prepare("SELECT sql FROM sqlite_master WHERE name = 'session_events'").get() as { sql: string }).sql;
    source.close();
    const times: number[] = [];
    mkdirSync(join(root, "raw"), { recursive: true });
    for (let i = 0; i < ROUNDS + 3; i++) {
      const path = join(root, "raw", `${randomUUID()}.sqlite`);
      const started = performance.now();
      const db = new Database(path);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.exec(ddl);
      db.prepare("ATTACH DATABASE ? AS parent").run(parent);
      db.transaction(() => db.prepare("INSERT INTO session_events SELECT * FROM parent.session_events WHERE seq <= ?").run(size))();
      db.close();
      const ms = performance.now() - started;
      if (i >= 3) times.push(ms);
    }
    out[String(size)] = round(p50(times));
  }
  return out;
}

const agentStoreDir = join(root, "agents");
const sqlite = createSqliteSessionBackend({ agentStoreDir });
const sqliteFork = await forkTimes(sqlite, "sqlite");
await sqlite.close();
const rawSqlite = rawSqliteTimes(agentStoreDir);

let postgres: Record<string, number> | { skipped: string } = { skipped: "STEAMHARNESS_TEST_POSTGRES_URL not set" };
const url = process.env.STEAMHARNESS_TEST_POSTGRES_URL;
if (url) {
  const schema = `sh_bench_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const backend = createPostgresSessionBackend({ pool, schema });
  try {
    postgres = await forkTimes(backend, "pg");
  } finally {
    await backend.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}
rmSync(root, { recursive: true, force: true });

const result = {
  what: "forkSession at the head of a session of N events (the whole history copied), p50 ms; raw: better-sqlite3 making the file and copying the same rows in one INSERT … SELECT",
  // `what` is kept as first written; since the flat fork (stop 46) nothing is copied: this says what is measured now.
  whatNow: "forkSession at the head of a session of N events, p50 ms: the parent opened once (head, lineage, hazard report) and kept open while the backend writes the fork — a pointer to the parent and the fork's record (SQLite: a new file from the migrated image, written and fsynced, then linked; PostgreSQL: one agent_sessions row); the prefix is read through, never copied. raw: as in `what`",
  rounds: ROUNDS,
  goals: { sqliteP50Ms: 5, postgresP50Ms: 15, flat: true },
  sqlite: sqliteFork,
  rawBetterSqlite3: rawSqlite,
  postgres,
  cpuPerForkMs: { what: "p50 of this process's CPU time (user + system) per forkSession, same forks as `sqlite` / `postgres` (added beside them: wall time on a loaded machine mostly measures the other processes; fsync waits are not CPU)", sqlite: forkCpu.sqlite, ...(forkCpu.pg ? { postgres: forkCpu.pg } : {}) },
  sqliteVsRaw: Object.fromEntries(SIZES.map((size) => [String(size), round(sqliteFork[String(size)]! / rawSqlite[String(size)]!)])),
  machine: { cores: (await import("node:os")).cpus().length, node: process.version },
};
mkdirSync(join(here, "results"), { recursive: true });
writeFileSync(join(here, "results", "timetravel.json"), `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
