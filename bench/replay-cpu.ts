/**
 * CPU of a recorded replay (issue 46, REPLAY-1), beside bench/replay.bench.ts (wall time, which a
 * loaded machine drowns): records the bench's 50-step run once, then replays it N times (or runs
 * it N times as new originals) and prints the process CPU per replay. Profile it with
 * `node --cpu-prof --import tsx bench/replay-cpu.ts replay 30`; compare builds A/B alternated.
 *
 *   node --import tsx bench/replay-cpu.ts [replay|original] [N=10]
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { createMemoryToolPermissions } from "../src/adapters/driven/memory/memory-tool-permissions.js";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { openAgent } from "../src/app/agent/create-agent.js";
import { replayRun } from "../src/app/time-travel/replay.js";
import { createNodeContext } from "../src/compose/node-context.js";
import type { AgentTool } from "../src/domain/agent-tool.js";
import { createOfflineModel, type OfflineStep } from "../src/testing/offline-model.js";
const STEPS = 50;
const steps: OfflineStep[] = [
  ...Array.from({ length: STEPS - 1 }, (_, i): OfflineStep => ({ toolCalls: [{ name: "effect", arguments: { i } }], usage: { input: 50, output: 5 } })),
  { text: "Done.", usage: { input: 50, output: 5 } },
];
const tool: AgentTool = { name: "effect", label: "effect", description: "an effect", parameters: Type.Object({ i: Type.Number() }),
  async execute(_id, params) { return { content: [{ type: "text", text: `effect ${(params as { i: number }).i}` }] }; } };
const dir = mkdtempSync(path.join(tmpdir(), "replay-prof-"));
const storage = createSqliteStorage({ directory: path.join(dir, "store"), agentStoreDir: path.join(dir, "agents") });
const agent = { models: createOfflineModel({ steps }), workdir: dir, retryDelayMs: 0, maxSteps: STEPS + 5, tools: ["effect"], extraTools: [tool] };
const context = (runId: string) => createNodeContext({ projectId: "bench", storage, runId, toolCatalog: [{ id: "effect", autoApprove: true }], toolPermissions: createMemoryToolPermissions() });
const mode = process.argv[2] ?? "replay";
const N = Number(process.argv[3] ?? 10);
for await (const chunk of openAgent({ ...agent, sessionKey: "agent", sessions: storage.sessions }).run({ prompt: "go", runId: "original" }, context("original"))) void chunk;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let k = 0; k < N; k++) {
  if (mode === "original") {
    for await (const chunk of openAgent({ ...agent, sessionKey: `o${k}`, sessions: storage.sessions }).run({ prompt: "go", runId: `o${k}` }, context(`o${k}`))) void chunk;
  } else {
    const source = (await storage.sessions.openUnleased({ address: { projectId: "bench", sessionKey: "agent" }, create: false }))!;
    const result = await replayRun("original", { source, sessions: storage.sessions, agent, context: context("x"), tools: "recorded" });
    if (result.status !== "completed" || result.live !== 0) throw new Error(JSON.stringify(result.error));
    await source.close();
  }
}
const cpu = process.cpuUsage(cpu0);
process.stdout.write(`${mode} x${N}: wall ${(performance.now() - t0).toFixed(0)} ms, cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms, per run ${((cpu.user + cpu.system) / 1000 / N).toFixed(1)} ms cpu\n`);
await storage.close();
