// Time-travel anchor (issue 46): the same 100-step tool loop on steamharness and on LangGraph.js
// (SqliteSaver, bench/durable-langgraph.ts `travel`), then time travel to after step 50's tool
// result: find the point, fork there with a new user message, continue to the end. Each tool
// execution is an effect (an unsafe one: a charge). Reported: the time to find the point, fork
// and continue, and how many effects the continuation fired again. Ours asks a fresh decision
// for every repeat of a parent's unsafe call after the point (FORK-2; denied here); LangGraph's
// re-invoke runs its tools node again. Both on SQLite files in one temp folder, same run.
// Run: npm run bench -- timetravel-anchor   Results: bench/results/timetravel-anchor.json.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Type } from "@sinclair/typebox";
import { createMemoryToolPermissions } from "../src/adapters/driven/memory/memory-tool-permissions.js";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { openAgent } from "../src/app/agent/create-agent.js";
import { forkSession } from "../src/app/time-travel/fork-session.js";
import { createNodeContext } from "../src/compose/node-context.js";
import type { AgentTool } from "../src/domain/agent-tool.js";
import type { SessionAddress } from "../src/ports/session-store.js";
import type { ToolPermissionDecision } from "../src/ports/tool-permissions.js";
import { createOfflineModel } from "../src/testing/offline-model.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = mkdtempSync(join(tmpdir(), "sh-bench-travel-"));
const STEPS = 100;
const AT = 50;

let charges = 0;
const charge: AgentTool = {
  name: "charge",
  label: "charge",
  description: "charges (counts its executions)",
  parameters: Type.Object({ n: Type.Number() }),
  replay: "never",
  async execute(_id, params) {
    charges++;
    return { content: [{ type: "text", text: `charged ${(params as { n: number }).n}` }] };
  },
};
// One tool call per step (the step index is the number of assistant messages so far), then an answer.
const model = createOfflineModel({ steps: (request) => {
  const done = request.messages.filter((message) => message.role === "assistant").length;
  return done >= STEPS ? { text: "All steps done." } : { text: `Step ${done}.`, toolCalls: [{ name: "charge", arguments: { n: done } }] };
} });

const storage = createSqliteStorage({ directory: join(root, "store"), agentStoreDir: join(root, "agents") });
const parent = { projectId: "bench", conversationId: "loop", sessionKey: "agent" };
const run = async (address: SessionAddress, runId: string, prompt: string, decide: () => ToolPermissionDecision) => {
  const agent = openAgent({ models: model, workdir: root, retryDelayMs: 0, maxSteps: STEPS + 2, tools: ["charge"], extraTools: [charge], sessionKey: address.sessionKey, sessions: storage.sessions });
  const context = createNodeContext({ projectId: "bench", ...(address.conversationId === undefined ? {} : { conversationId: address.conversationId }), storage, runId, toolCatalog: [{ id: "charge", autoApprove: true }], toolPermissions: createMemoryToolPermissions({ decide }) });
  for await (const chunk of agent.run({ prompt, runId }, context)) void chunk;
};
await run(parent, "run-loop", "Run the loop.", () => ({ outcome: "approved" }));
if (charges !== STEPS) throw new Error(`the loop charged ${charges} times`);

let started = performance.now();
const store = (await storage.sessions.openUnleased({ address: parent, create: false }))!;
// The point: step AT's tool result (its call id names the step's index among the calls).
const events = await store.readAfter(0);
await store.close();
const results = events.filter((event) => event.type === "tool_result");
const point = results[AT - 1]!.seq;
const findMs = performance.now() - started;
started = performance.now();
const fork = await forkSession({ sessions: storage.sessions, from: parent, at: { seq: point } });
const forkMs = performance.now() - started;
const before = charges;
started = performance.now();
await run(fork.address, "run-fork", "Try again.", () => ({ outcome: "denied", reason: "a repeat of a charge" }));
const continueMs = performance.now() - started;
const ours = { findMs, forkMs, continueMs, refired: charges - before, hazards: fork.hazards.length };
await storage.close();

const lgFile = join(root, "langgraph.sqlite");
const child = spawnSync(process.execPath, ["--import", "tsx", join(here, "durable-langgraph.ts"), "travel", lgFile, String(STEPS), String(AT)], { encoding: "utf8" });
if (child.status !== 0) throw new Error(`durable-langgraph.ts travel failed: ${child.stderr}`);
const langgraph = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as { historyMs: number; forkMs: number; reinvokeMs: number; refired: number };
rmSync(root, { recursive: true, force: true });

const round = (value: number): number => Number(value.toFixed(3));
const result = {
  what: `a ${STEPS}-step loop with one unsafe tool call per step; time travel to after step ${AT}'s tool result: find the point, fork with a new message, continue to the end (ms, one run each); refired = effects executed again by the continuation`,
  steamharness: { findMs: round(ours.findMs), forkMs: round(ours.forkMs), continueMs: round(ours.continueMs), refired: ours.refired, hazards: ours.hazards },
  langgraph: { findMs: round(langgraph.historyMs), forkMs: round(langgraph.forkMs), continueMs: round(langgraph.reinvokeMs), refired: langgraph.refired },
  ratios: { find: round(ours.findMs / langgraph.historyMs), fork: round(ours.forkMs / langgraph.forkMs), continue: round(ours.continueMs / langgraph.reinvokeMs) },
  machine: { cores: (await import("node:os")).cpus().length, node: process.version },
};
mkdirSync(join(here, "results"), { recursive: true });
writeFileSync(join(here, "results", "timetravel-anchor.json"), `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
