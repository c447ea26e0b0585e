/**
 * The run the CPU benches of tracing repeat (bench/observability-cpu-loop.ts and
 * bench/observability-split-loop.ts): the durable tool loop of bench/durable-support.ts on a
 * fresh SQLite store in `dir`, one run `runId` of `steps` steps ending at its approval pause,
 * with the telemetry of `runtime`.
 */
import { join } from "node:path";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createNodeContext } from "../src/compose/node-context.js";
import { runStreamNode } from "../src/domain/stream-node.js";
import type { HarnessRuntime } from "../src/ports/runtime.js";
import { benchLoopNode, BENCH_CATALOG } from "./durable-support.js";

/**
 * Runs the loop once; its storage is closed before it returns.
 *
 * @example
 * await runBenchLoop(join(target, "warm"), "run-warm", 100, runtime);
 */
export async function runBenchLoop(dir: string, runId: string, steps: number, runtime: HarnessRuntime): Promise<void> {
  const storage = createSqliteStorage({ directory: join(dir, "store"), agentStoreDir: join(dir, "agents") });
  const context = createNodeContext({ projectId: "bench", conversationId: runId, storage, runId, toolCatalog: BENCH_CATALOG, runtime });
  try {
    await runStreamNode(benchLoopNode(steps), { prompt: "Run the loop." }, context);
  } catch (error) {
    if ((error as { code?: string }).code !== "user_input_required") throw error;
  }
  await storage.close();
}
