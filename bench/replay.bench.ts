/**
 * Replay and evals (issue 46 items 3 and 4) → bench/results/timetravel-replay.json.
 *
 * - Replay throughput in recorded mode: a recorded run of STEPS model steps, each calling one
 *   tool, replayed with every call answered from the recording (REPLAY-1), on the offline model.
 *   Reported twice: with tools that cost nothing (the harness alone: the ratio is the harness's
 *   recorded-answer path against its run-the-tool path), and with tools that wait TOOL_MS per call
 *   (a stand-in for a remote effect, what recorded mode skips). Goal ≥ 10× on the second;
 *   `replaySlowToolsMedian` repeats it and reports the median ratio.
 * - An eval suite of 100 cases at concurrency 4 on SQLite: wall time and peak RSS.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { createMemoryToolPermissions } from "../src/adapters/driven/memory/memory-tool-permissions.js";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { openAgent } from "../src/app/agent/create-agent.js";
import { runEvalSuite } from "../src/app/time-travel/eval.js";
import { replayRun } from "../src/app/time-travel/replay.js";
import { createNodeContext } from "../src/compose/node-context.js";
import type { AgentTool } from "../src/domain/agent-tool.js";
import { checkEvalSuite } from "../src/domain/time-travel/eval-suite.js";
import { createOfflineModel, type OfflineStep } from "../src/testing/offline-model.js";

const STEPS = 50;
const TOOL_MS = 20;
const CASES = 100;

const steps: OfflineStep[] = [
  ...Array.from({ length: STEPS - 1 }, (_, i): OfflineStep => ({ toolCalls: [{ name: "effect", arguments: { i } }], usage: { input: 50, output: 5 } })),
  { text: "Done.", usage: { input: 50, output: 5 } },
];
const tool = (waitMs: number): AgentTool => ({
  name: "effect",
  label: "effect",
  description: "an effect",
  parameters: Type.Object({ i: Type.Number() }),
  async execute(_id, params) {
    if (waitMs > 0) await new Promise((done) => setTimeout(done, waitMs));
    return { content: [{ type: "text", text: `effect ${(params as { i: number }).i}` }] };
  },
});

async function measure(waitMs: number) {
  const dir = mkdtempSync(path.join(tmpdir(), "replay-bench-"));
  const storage = createSqliteStorage({ directory: path.join(dir, "store"), agentStoreDir: path.join(dir, "agents") });
  const agent = { models: createOfflineModel({ steps }), workdir: dir, retryDelayMs: 0, maxSteps: STEPS + 5, tools: ["effect"], extraTools: [tool(waitMs)] };
  const context = (runId: string) => createNodeContext({ projectId: "bench", storage, runId, toolCatalog: [{ id: "effect", autoApprove: true }], toolPermissions: createMemoryToolPermissions() });
  let started = performance.now();
  for await (const chunk of openAgent({ ...agent, sessionKey: "agent", sessions: storage.sessions }).run({ prompt: "go", runId: "original" }, context("original"))) void chunk;
  const originalMs = performance.now() - started;
  const source = (await storage.sessions.openUnleased({ address: { projectId: "bench", sessionKey: "agent" }, create: false }))!;
  started = performance.now();
  const result = await replayRun("original", { source, sessions: storage.sessions, agent, context: context("x"), tools: "recorded" });
  const replayMs = performance.now() - started;
  if (result.status !== "completed" || result.live !== 0) throw new Error(`replay did not complete from the recording: ${JSON.stringify(result.error)}`);
  await source.close();
  await storage.close();
  const original = STEPS / (originalMs / 1000);
  const replay = STEPS / (replayMs / 1000);
  return { toolMs: waitMs, steps: STEPS, originalMs: Math.round(originalMs), replayMs: Math.round(replayMs), originalStepsPerSecond: Math.round(original), replayStepsPerSecond: Math.round(replay), ratio: Number((replay / original).toFixed(2)) };
}

async function evalSuite() {
  const dir = mkdtempSync(path.join(tmpdir(), "eval-bench-"));
  const storage = createSqliteStorage({ directory: path.join(dir, "store"), agentStoreDir: path.join(dir, "agents") });
  const agent = { models: createOfflineModel({ steps: [{ toolCalls: [{ name: "effect", arguments: { i: 0 } }] }, { toolCalls: [{ name: "effect", arguments: { i: 1 } }] }, { text: "Done." }] }), workdir: dir, retryDelayMs: 0, tools: ["effect"], extraTools: [tool(0)] };
  const context = (runId: string) => createNodeContext({ projectId: "bench", storage, runId, toolCatalog: [{ id: "effect", autoApprove: true }], toolPermissions: createMemoryToolPermissions() });
  for await (const chunk of openAgent({ ...agent, sessionKey: "agent", sessions: storage.sessions }).run({ prompt: "go", runId: "original" }, context("original"))) void chunk;
  const suite = checkEvalSuite({ name: "bench", concurrency: 4, cases: Array.from({ length: CASES }, (_, i) => ({ name: `case-${i}`, run: "original", expect: { finalText: { contains: "Done" }, tools: { equal: ["effect", "effect"] } } })) });
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const before = process.memoryUsage().rss;
  const started = performance.now();
  const scorecard = await runEvalSuite(suite, {
    agent,
    context: (entry) => context(entry.name),
    async openCase() {
      const source = (await storage.sessions.openUnleased({ address: { projectId: "bench", sessionKey: "agent" }, create: false }))!;
      return { source, sessions: storage.sessions, runId: "original", close: () => source.close() };
    },
  });
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  await storage.close();
  if (scorecard.passed !== CASES) throw new Error(`eval bench: ${scorecard.failed} cases failed: ${JSON.stringify(scorecard.cases.find((entry) => !entry.pass))}`);
  return { cases: CASES, concurrency: 4, wallMs: Math.round(wallMs), msPerCase: Number((wallMs / CASES).toFixed(1)), rssBeforeMb: Math.round(before / 2 ** 20), peakRssMb: Math.round(peak / 2 ** 20) };
}

/**
 * Beside `replaySlowTools` (one original and one replay, the figure's definition): the same
 * measurement `rounds` times, each round's figures, and the median ratio — one 50-step replay is a
 * single short sample, which a loaded machine's scheduling can halve or double.
 */
async function median(waitMs: number, rounds: number) {
  const ratios: number[] = [];
  for (let k = 0; k < rounds; k++) ratios.push((await measure(waitMs)).ratio);
  return { toolMs: waitMs, steps: STEPS, rounds, ratios, medianRatio: [...ratios].sort((a, b) => a - b)[Math.floor(rounds / 2)]! };
}

// A first round warms the JIT and the SQLite files' code paths, so the original run is not charged for them.
await measure(0);
const results = {
  generatedAt: new Date().toISOString(),
  node: process.version,
  note: "offline model; SQLite sessions; 2 shared cores under load from other work, so absolute times are noisy",
  replayInstantTools: await measure(0),
  replaySlowTools: await measure(TOOL_MS),
  replaySlowToolsMedian: await median(TOOL_MS, 5),
  evalSuite: await evalSuite(),
};
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/timetravel-replay.json", `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
