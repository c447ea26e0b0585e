// Child process of bench/durable-store.bench.ts (measure d): in a fresh process, read a paused
// session's state — open, head (snapshot), events after the snapshot — and print the timings.
// Mode "raw" is the baseline: the same reads with better-sqlite3 alone (no drizzle, no store),
// hand-written SQL, so the bench can show what the store adds over SQLite's own floor.
import { performance } from "node:perf_hooks";

type Reader = (path: string) => Promise<{ events: number }>;

async function storeReader(): Promise<Reader> {
  const { createSqliteSessionStore } = await import("../src/adapters/driven/sqlite/sessions/sqlite-session-store.js");
  return async (path) => {
    const store = createSqliteSessionStore({ path, address: { projectId: "bench", sessionKey: "agent" } });
    const head = await store.head();
    const events = await store.readAfter(head.snapshot?.atSeq ?? 0);
    await store.close();
    return { events: events.length };
  };
}

async function rawReader(): Promise<Reader> {
  const { default: Database } = await import("better-sqlite3");
  return async (path) => {
    const client = new Database(path);
    client.pragma("journal_mode = WAL");
    const head = client
      .prepare("SELECT m.last_seq, s.at_seq, s.state FROM session_meta m LEFT JOIN session_snapshots s ON s.at_seq = m.snapshot_at_seq WHERE m.id = 1")
      .get() as { at_seq: number | null; state: string | null };
    if (head.state !== null) JSON.parse(head.state);
    const rows = client.prepare("SELECT * FROM session_events WHERE seq > ? ORDER BY seq").all(head.at_seq ?? 0) as Array<{ payload: string }>;
    for (const row of rows) JSON.parse(row.payload);
    client.close();
    return { events: rows.length };
  };
}

async function timed(read: Reader, path: string): Promise<{ ms: number; cpuMs: number; events: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const { events } = await read(path);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, events };
}

const [path, mode = "store"] = process.argv.slice(2) as [string, string?];
const importStart = performance.now();
const read = mode === "raw" ? await rawReader() : await storeReader();
const importMs = performance.now() - importStart;
const first = await timed(read, path);
const again = await timed(read, path);
process.stdout.write(JSON.stringify({ importMs, firstMs: first.ms, firstCpuMs: first.cpuMs, secondMs: again.ms, events: first.events }));
