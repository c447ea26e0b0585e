// Child process of bench/durable-store.bench.ts (measure d): in a fresh process, read a paused
// session's state — open, head (snapshot), events after the snapshot — and print the timings.
import { performance } from "node:perf_hooks";

const importStart = performance.now();
const { createSqliteSessionStore } = await import("../src/adapters/sqlite-session/sqlite-session-store.js");
const importMs = performance.now() - importStart;

async function readState(path: string): Promise<{ ms: number; cpuMs: number; events: number; atSeq: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const store = createSqliteSessionStore({ path, address: { projectId: "bench", sessionKey: "agent" } });
  const head = await store.head();
  const events = await store.readAfter(head.snapshot?.atSeq ?? 0);
  await store.close();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, events: events.length, atSeq: head.snapshot?.atSeq ?? 0 };
}

const path = process.argv[2]!;
const first = await readState(path);
const again = await readState(path);
process.stdout.write(JSON.stringify({ importMs, firstMs: first.ms, firstCpuMs: first.cpuMs, secondMs: again.ms, events: first.events, atSeq: first.atSeq }));
