/**
 * Shared pieces of bench/durable.bench.ts and its child processes (and bench/tenancy.bench.ts):
 * the scripted tool-loop agent and one timed run of it, file sizes, and a session history
 * builder (earlier runs plus a compaction snapshot).
 */
import { statSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import { createSqliteSessionStore } from "../src/adapters/driven/sqlite/sessions/sqlite-session-store.js";
import { createAgentNode, type AgentNodeOptions } from "../src/app/agent-node/create-agent-node.js";
import type { AgentTool } from "../src/domain/agent-tool.js";
import type { SessionEventInput } from "../src/domain/agent/session-events.js";
import { runStreamNode } from "../src/domain/stream-node.js";
import type { ModelRequest } from "../src/ports/model-provider.js";
import type { SessionAddress } from "../src/ports/session-store.js";
import type { Storage } from "../src/ports/storage.js";
import type { ToolPermissions } from "../src/ports/tool-permissions.js";
import type { ToolCatalogEntry } from "../src/domain/node-context.js";
import { createNodeContext } from "../src/compose/node-context.js";
import { createOfflineModel, type OfflineStep } from "../src/testing/offline-model.js";

/** `lookup` runs freely; `deploy` needs a person's approval (the run pauses on it). */
export const BENCH_CATALOG = [{ id: "lookup", autoApprove: true }, { id: "deploy" }];

const tools: AgentTool[] = [
  {
    name: "lookup",
    label: "Look up",
    description: "Looks a key up",
    parameters: Type.Object({ key: Type.String() }),
    replay: "safe",
    execute: async (_id, params) => ({ content: [{ type: "text", text: `value-of-${(params as { key: string }).key}` }] }),
  },
  {
    name: "deploy",
    label: "Deploy",
    description: "Deploys",
    parameters: Type.Object({ target: Type.String() }),
    execute: async () => ({ content: [{ type: "text", text: "deployed" }] }),
  },
];

/**
 * The script of one run: `steps` model responses with one `lookup` call each (counted from the
 * run's prompt, so it works in a session with history), then a `deploy` call that pauses for
 * approval (`end: "approval"`) or a final answer.
 */
export function loopScript(steps: number, end: "approval" | "answer"): (request: ModelRequest) => OfflineStep {
  return (request) => {
    const lastUser = request.messages.map((message) => message.role).lastIndexOf("user");
    const step = request.messages.slice(lastUser).filter((message) => message.role === "assistant").length;
    const usage = { input: 100 + step, output: 10, cacheRead: 0, cacheWrite: 0, total: 110 + step };
    if (step < steps) return { text: `Step ${step}.`, toolCalls: [{ id: `call-${step}`, name: "lookup", arguments: { key: `k${step}` } }], usage };
    if (step === steps && end === "approval") return { toolCalls: [{ id: "call-deploy", name: "deploy", arguments: { target: "prod" } }], usage };
    return { text: "All steps done.", usage };
  };
}

/**
 * The agent node of the benchmarks: the offline model on {@link loopScript}, the two tools, no
 * retry delay, room for the steps.
 *
 * @example
 * const node = benchLoopNode(100);
 */
export function benchLoopNode(steps: number, end: "approval" | "answer" = "approval", options: Partial<AgentNodeOptions> = {}) {
  return createAgentNode({
    models: createOfflineModel({ steps: loopScript(steps, end) }),
    extraTools: tools,
    retryDelayMs: 0,
    maxSteps: steps + 10,
    ...options,
  });
}

/**
 * One run of the {@link benchLoopNode} loop of `steps` steps in conversation `conversationId` on
 * `storage`, so the run chooses its durable session file under the session lease as a host's run
 * does (SES-1, SES-2); it ends paused on the approval after the last step. Resolves its wall ms.
 * `gate` replaces the catalog and the approval port (bench/approvals.bench.ts: every call gated).
 *
 * @example
 * const ms = await timedLoop(storage, "loop", 100); // ms / 100 per step
 */
export async function timedLoop(storage: Storage, conversationId: string, steps: number, gate?: { toolCatalog: ToolCatalogEntry[]; toolPermissions: ToolPermissions }): Promise<{ ms: number; paused: boolean }> {
  const node = benchLoopNode(steps);
  const context = createNodeContext({ projectId: "bench", conversationId, storage, runId: `run-${conversationId}`, toolCatalog: BENCH_CATALOG, ...gate });
  const started = performance.now();
  let paused = false;
  try {
    await runStreamNode(node, { prompt: "Run the loop." }, context);
  } catch (error) {
    paused = (error as { code?: string }).code === "user_input_required";
    if (!paused) throw error;
  }
  return { ms: performance.now() - started, paused };
}

/** The bytes of a SQLite file with its WAL and shared-memory files. */
export function fileBytes(path: string): number {
  let total = 0;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      total += statSync(`${path}${suffix}`).size;
    } catch {
      // absent
    }
  }
  return total;
}

/** One earlier run as the agent writes it: 9 events (prompt, tool call and result, answer, usage). */
function earlierRun(n: number): SessionEventInput[] {
  const runId = `old-${n}`;
  const id = (...path: Array<string | number>) => [runId, ...path].join("/");
  const call = { type: "toolCall" as const, id: "call-0", name: "lookup", arguments: { key: `k${n}` } };
  const entry = { entryId: id("usage"), runId, provider: "offline", model: "offline-scripted", at: 0, input: 100, output: 10, cacheRead: 0, cacheWrite: 0, total: 110 };
  const start = { prompt: `Question ${n}`, mode: "build", workdir: "/w", effort: "medium", provider: "offline", model: "offline-scripted", modelSource: { source: "injected", id: "offline" }, configuration: null, answerItemId: null };
  return [
    { eventId: id("start"), runId, type: "run_started", payload: start },
    { eventId: id("prompt"), runId, type: "user_message", payload: { message: { role: "user", content: `Question ${n}` } } },
    { eventId: id("model", 0), runId, type: "assistant_message", payload: { message: { role: "assistant", content: [{ type: "text", text: "Looking." }, call] }, stopReason: "toolUse", step: 0, attempt: 0 } },
    { eventId: id("tool", "call-0", "intent"), runId, type: "tool_intent", payload: { toolCallId: "call-0", toolName: "lookup", arguments: call.arguments, replay: "safe" } },
    { eventId: id("tool", "call-0", "started"), runId, type: "tool_started", payload: { toolCallId: "call-0" } },
    { eventId: id("tool", "call-0", "result"), runId, type: "tool_result", payload: { message: { role: "toolResult", toolCallId: "call-0", toolName: "lookup", content: [{ type: "text", text: `value-of-k${n}` }], isError: false }, details: null } },
    { eventId: id("model", 1), runId, type: "assistant_message", payload: { message: { role: "assistant", content: [{ type: "text", text: `Answer ${n}.` }] }, stopReason: "stop", step: 1, attempt: 0 } },
    { eventId: id("model", 1, "usage", 0), runId, type: "usage", payload: { entry } },
    { eventId: id("end"), runId, type: "run_finished", payload: { status: "completed", toolCallCount: 1 } },
  ];
}

/**
 * Writes `events` events of earlier runs into a session file, then a compaction snapshot at the
 * end of them (the summary a compaction leaves), as SES-7 does: a resumed run reads the snapshot
 * and the events after it, not the history.
 */
export async function buildCompactedHistory(path: string, address: SessionAddress, events: number): Promise<void> {
  const store = createSqliteSessionStore({ path, address });
  let batch: SessionEventInput[] = [];
  for (let n = 0, written = 0; written < events; n++) {
    const run = earlierRun(n).slice(0, events - written);
    batch.push(...run);
    written += run.length;
    if (batch.length >= 900) {
      await store.append(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await store.append(batch);
  const head = await store.head();
  await store.putSnapshot({ atSeq: head.lastSeq, state: { messages: [{ role: "user", content: `Summary of the conversation so far (compacted): ${events} events.` }] } });
  await store.close();
}
