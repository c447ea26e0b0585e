/**
 * The processes of bench/postgres.bench.ts. Prints JSON lines on stdout. Usage:
 *   node --import tsx bench/postgres-child.ts loop sqlite <dir> <steps>            → { msPerStep, ms }
 *   node --import tsx bench/postgres-child.ts loop postgres <url> <schema> <steps> → { msPerStep, ms }
 *   node --import tsx bench/postgres-child.ts turns <url> <schema> <tag> <conversations> <turns> <go file>
 *       → { event: "ready" }, then after <go file> exists { turns, startedAt, endedAt }
 *   node --import tsx bench/postgres-child.ts hold <url> <schema> <conversation>   → { event: "held" }, then sleeps
 *   node --import tsx bench/postgres-child.ts wait <url> <schema> <conversation>   → { event: "waiting" }, then { event: "acquired", at }
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createPostgresStorage } from "../src/adapters/driven/postgres/postgres-storage.js";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { runStreamNode } from "../src/domain/stream-node.js";
import type { Storage } from "../src/ports/storage.js";
import { createNodeContext } from "../src/compose/node-context.js";
import { BENCH_CATALOG, benchLoopNode } from "./durable-support.js";

const args = process.argv.slice(2);
const say = (value: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(value)}\n`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const address = (conversationId: string) => ({ projectId: "bench", conversationId, sessionKey: "agent" });

if (args[0] === "loop") {
  // (a) The 100-step tool loop of bench/durable-ours.ts, on either storage: a conversation run, so
  // the run opens its durable session under the lease, as a host's run does.
  const postgres = args[1] === "postgres";
  const steps = Number(postgres ? args[4] : args[3]);
  const storage: Storage = postgres
    ? await createPostgresStorage({ connectionString: args[2]!, schema: args[3]! })
    : createSqliteStorage({ directory: join(args[2]!, "store"), agentStoreDir: join(args[2]!, "agents") });
  const node = benchLoopNode(steps);
  const context = createNodeContext({ projectId: "bench", conversationId: "loop", storage, runId: "run-loop", toolCatalog: BENCH_CATALOG });
  const started = performance.now();
  try {
    await runStreamNode(node, { prompt: "Run the loop." }, context);
  } catch (error) {
    if ((error as { code?: string }).code !== "user_input_required") throw error;
  }
  const ms = performance.now() - started;
  await storage.close();
  say({ ms, msPerStep: ms / steps });
} else if (args[0] === "turns") {
  // (b) One host process running `conversations` conversations at once, each `turns` turns in a row.
  const [, url, schema, tag, conversationsArg, turnsArg, go] = args;
  const storage = await createPostgresStorage({ connectionString: url!, schema: schema!, sessions: { maxLeaseConnections: 40 } });
  const node = benchLoopNode(1, "answer");
  const turn = (conversationId: string, i: number) =>
    runStreamNode(node, { prompt: `Turn ${i}` }, createNodeContext({ projectId: "bench", conversationId, storage, runId: `${conversationId}-turn-${i}`, toolCatalog: BENCH_CATALOG }));
  // Warm up: one turn per conversation (driver, statements, migrations checked) before the start.
  const conversations = Array.from({ length: Number(conversationsArg) }, (_, c) => `${tag}-c${c}`);
  await Promise.all(conversations.map((conversation) => turn(conversation, -1)));
  say({ event: "ready" });
  while (!existsSync(go!)) await pause(2);
  const startedAt = Date.now();
  await Promise.all(conversations.map(async (conversation) => {
    for (let i = 0; i < Number(turnsArg); i++) await turn(conversation, i);
  }));
  const endedAt = Date.now();
  await storage.close();
  say({ event: "done", turns: conversations.length * Number(turnsArg), startedAt, endedAt });
} else if (args[0] === "hold" || args[0] === "wait") {
  // (c) A holder of a session's lease (killed by the parent), and a host waiting to take it over.
  const [mode, url, schema, conversation] = args;
  const storage = await createPostgresStorage({ connectionString: url!, schema: schema! });
  if (mode === "hold") {
    await storage.sessions!.open({ address: address(conversation!), ownerId: `holder-${process.pid}` });
    say({ event: "held" });
    for (;;) await pause(1000);
  }
  // The waiting host retries every 10 ms, as a standby host would.
  say({ event: "waiting" });
  for (;;) {
    const lease = await storage.sessions!.leases.acquire(address(conversation!), { ownerId: `standby-${process.pid}` });
    if (lease) {
      say({ event: "acquired", at: Date.now() });
      await lease.release();
      break;
    }
    await pause(10);
  }
  await storage.close();
}
