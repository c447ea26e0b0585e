/**
 * One process of bench/observability.bench.ts: the durable 100-step tool loop of
 * bench/durable-ours.ts (the same agent, storage and catalog), run twice in this process (a warm
 * run, then the measured one, each in a fresh folder) with telemetry:
 *   off     the default runtime (the no-op telemetry)
 *   on      the OpenTelemetry adapter over the real SDK, a batch span processor and an OTLP/HTTP
 *           exporter to the bench's loopback receiver, plus metrics (exported at the end)
 *   on-noflush  like on, with `flushOnRunStart: false` (the run's root waits for the batch)
 *   absent  like off, with every `@opentelemetry/*` import failing (the bench starts this one with
 *           a resolve hook), to show the API's absence costs nothing
 * Usage: node --import tsx bench/observability-loop.ts <off|on|on-noflush|absent> <dir> <steps> [receiver url]
 * Prints one JSON line: { msPerStep, ms, spans? }.
 */
import { join } from "node:path";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createHarnessRuntime } from "../src/compose/runtime.js";
import { createNodeContext } from "../src/compose/node-context.js";
import { runStreamNode } from "../src/domain/stream-node.js";
import type { HarnessRuntime } from "../src/ports/runtime.js";
import { benchLoopNode, BENCH_CATALOG } from "./durable-support.js";

const [mode, target, stepsArg, receiver] = process.argv.slice(2);
const steps = Number(stepsArg ?? 100);

let runtime: HarnessRuntime = createHarnessRuntime();
let shutdown = async (): Promise<void> => undefined;
if (mode === "on" || mode === "on-noflush") {
  const [{ startTestSdk }, { createOpenTelemetry }] = await Promise.all([import("../test/fixtures/otel-sdk.js"), import("../src/adapters/driven/opentelemetry/open-telemetry.js")]);
  // The SDK's default batch schedule (5 s, batches of 512), as a production setup has it.
  const sdk = startTestSdk(receiver!, "bench", { scheduledDelayMillis: 5000 });
  runtime = { ...runtime, telemetry: createOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, flushOnRunStart: mode === "on" }) };
  shutdown = () => sdk.shutdown();
} else if (mode === "absent") {
  // The hook must really hide the API: loading the adapter has to fail here.
  const hidden = await import("@opentelemetry/api").then(() => false, () => true);
  if (!hidden) throw new Error("absent mode: @opentelemetry/api still resolves");
}

async function loop(dir: string, runId: string): Promise<number> {
  const storage = createSqliteStorage({ directory: join(dir, "store"), agentStoreDir: join(dir, "agents") });
  const context = createNodeContext({ projectId: "bench", conversationId: runId, storage, runId, toolCatalog: BENCH_CATALOG, runtime });
  const started = performance.now();
  try {
    await runStreamNode(benchLoopNode(steps), { prompt: "Run the loop." }, context);
  } catch (error) {
    if ((error as { code?: string }).code !== "user_input_required") throw error;
  }
  const ms = performance.now() - started;
  await storage.close();
  return ms;
}

await loop(join(target!, "warm"), "run-warm");
const ms = await loop(join(target!, "measured"), "run-measured");
await shutdown();
console.log(JSON.stringify({ ms, msPerStep: ms / steps }));
