/**
 * Our side of the tool-loop comparison in bench/durable.bench.ts, in its own process: the agent
 * on a SQLite storage, in a conversation, so it chooses its durable session file under the
 * session lease exactly as a host's run does (SES-1, SES-2). The offline model makes one tool
 * call per step; after the last step it calls a tool that needs approval, so the run ends paused
 * (the state a host reads back later: the last event, its `run_stopped`, names the pending request). Usage:
 *   node --import tsx bench/durable-ours.ts loop <dir> <steps>   → { msPerStep, ms, bytes, path }
 *   node --import tsx bench/durable-ours.ts read <session file>  → { readMs, coldMs, cpuMs, pending, lastSeq }
 *   node --import tsx bench/durable-ours.ts raw <session file>   → the same read with bare better-sqlite3 (the floor)
 * `read`/`raw` open a host storage first (`host-store` next to the file, created by the first
 * call) as a host process has, and time the read after it (`readMs`) and including it (`coldMs`).
 * Prints one JSON line.
 */
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { resolveSessionDatabasePath } from "../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { createSqliteSessionStore } from "../src/adapters/driven/sqlite/sessions/sqlite-session-store.js";
import { fileBytes, timedLoop } from "./durable-support.js";

const [mode, target, stepsArg] = process.argv.slice(2);

if (mode === "loop") {
  const steps = Number(stepsArg ?? 100);
  const storage = createSqliteStorage({ directory: join(target!, "store"), agentStoreDir: join(target!, "agents") });
  const { ms, paused } = await timedLoop(storage, "loop", steps);
  await storage.close();
  const path = resolveSessionDatabasePath({ agentStoreDir: join(target!, "agents"), conversationId: "loop", sessionKey: "agent" });
  console.log(JSON.stringify({ ms, msPerStep: ms / steps, bytes: fileBytes(path), path, paused }));
} else {
  // A host process that shows a paused session has its storage open already (that opens the
  // SQLite driver); then it opens the session file and reads the head and the last event. Both
  // are timed: `readMs` is the read, `coldMs` adds opening the storage (the driver's first load).
  const processStart = performance.now();
  const storage = createSqliteStorage({ directory: join(dirname(target!), "host-store") });
  const cpu = process.cpuUsage();
  const started = performance.now();
  let pending: string | null;
  let lastSeq: number;
  if (mode === "raw") {
    // The floor: the same two reads with better-sqlite3 alone.
    const db = new Database(target!, { readonly: true });
    const meta = db.prepare("select last_seq as lastSeq from session_meta where id = 1").get() as { lastSeq: number };
    const last = db.prepare("select type, payload from session_events where seq = ?").get(meta.lastSeq) as { type: string; payload: string };
    db.close();
    const stop = last.type === "run_stopped" ? (JSON.parse(last.payload) as { status: string; requestId?: string }) : null;
    pending = stop?.status === "waiting" ? stop.requestId ?? null : null;
    lastSeq = meta.lastSeq;
  } else {
    const store = createSqliteSessionStore({ path: target!, address: { projectId: "bench", conversationId: "loop", sessionKey: "agent" } });
    const head = await store.head();
    const [last] = await store.readAfter(head.lastSeq - 1);
    await store.close();
    // A paused run's last event is its stop, naming the pending request.
    pending = last?.type === "run_stopped" && last.payload.status === "waiting" ? last.payload.requestId ?? null : null;
    lastSeq = head.lastSeq;
  }
  const readMs = performance.now() - started;
  const coldMs = performance.now() - processStart;
  const used = process.cpuUsage(cpu);
  await storage.close();
  console.log(JSON.stringify({ readMs, coldMs, cpuMs: (used.user + used.system) / 1000, pending, lastSeq }));
}
