// Sessions for the viewer tests and the benchmark, produced by the real agent with the offline
// model on a real SQLite storage: tools with resource cards, a retry, a plan and its approval,
// a present_card command, and pauses answered through the stored-decision ports.
import { createSqliteStorage, type SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createStoredDecisions, type StoredDecisions } from "../../src/adapters/driving/viewer/stored-decisions.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import type { AgentInput } from "../../src/app/agent/types.js";
import { createProjectCapabilityTools } from "../../src/app/capabilities/project-capabilities.js";
import type { SessionEventInput } from "../../src/domain/agent/session-events.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { createNodeContext } from "../../src/compose/node-context.js";

export const PROJECT = "project-demo";
export const CONVERSATION = "conv-plan";

/** The catalog: KV and cards run without asking; nothing else is declared. */
export const CATALOG = [
  { id: "workflow-kv_kv_store", autoApprove: true },
  { id: "workflow-ui_present_card", autoApprove: true },
];

/** The plan run's script: reasoning, text, a KV write (card), a dropped response (retry), a present_card, then the plan. */
export const PLAN_STEPS: OfflineStep[] = [
  { reasoning: "The user wants a release plan. Record the goal first.", text: "I'll note the goal first.", toolCalls: [{ id: "call_kv", name: "workflow-kv_kv_store", arguments: { action: "set", key: "goal", value: "ship 1.0" } }] },
  { error: { message: "connection dropped", kind: "dropped" }, text: "Here is the team board.", toolCalls: [{ id: "call_card", name: "workflow-ui_present_card", arguments: { action: "upsert", cardId: "board", kind: "browser", title: "Team board", target: { url: "https://example.com/board" } } }] },
  { plan: "1. Freeze the API\n2. Write the changelog\n3. Tag 1.0" },
  { text: "Done: the release is prepared." },
];

export function openStorage(directory: string): SqliteStorage {
  return createSqliteStorage({ directory });
}

export function decisionsFor(storage: SqliteStorage): StoredDecisions {
  return createStoredDecisions({ values: storage.values, projectId: PROJECT });
}

/** Runs (or re-runs, as a host does after a decision) one agent run; never throws on a pause. */
export async function runAgent(storage: SqliteStorage, options: { runId: string; prompt: string; steps: OfflineStep[]; conversationId?: string; sessionKey?: string; mode?: "plan" | "build"; decisions?: StoredDecisions; catalog?: typeof CATALOG }): Promise<{ status: "completed" | "paused" | "failed"; error?: unknown }> {
  const decisions = options.decisions ?? decisionsFor(storage);
  const model = createOfflineModel({ steps: options.steps, chunkSize: 64 });
  const node = createAgentNode({
    models: model,
    workdir: process.cwd(),
    retryDelayMs: 0,
    sessionKey: options.sessionKey ?? "agent",
    ...(options.mode ? { mode: options.mode } : {}),
    createTools: (context) => createProjectCapabilityTools({ context }),
  });
  const context = createNodeContext({
    projectId: PROJECT,
    storage,
    runId: options.runId,
    conversationId: options.conversationId ?? CONVERSATION,
    toolCatalog: options.catalog ?? CATALOG,
    toolPermissions: decisions.toolPermissions,
    userInput: decisions.userInput,
  });
  const input: AgentInput = { prompt: options.prompt, runId: options.runId };
  try {
    await runStreamNode(node, input, context);
    return { status: "completed" };
  } catch (error) {
    return { status: (error as { code?: string }).code === "user_input_required" ? "paused" : "failed", error };
  }
}

/**
 * A session of `events` events in one run (for paging and the benchmark): appended straight into
 * the log in the agent's own event shapes — model responses with text and a tool call, their
 * results and usage — as a long run leaves them.
 */
export async function writeLargeSession(storage: SqliteStorage, options: { sessionKey: string; runId: string; events: number; conversationId?: string }): Promise<void> {
  const store = await storage.sessions.open({ address: { projectId: PROJECT, conversationId: options.conversationId ?? "conv-large", sessionKey: options.sessionKey }, ownerId: "fixture" });
  try {
    const { runId } = options;
    const batch: SessionEventInput[] = [
      { eventId: `${runId}/start`, runId, type: "run_started", payload: { prompt: `Process ${options.events} events`, mode: "build", workdir: "/tmp", effort: "medium", provider: "offline", model: "offline-scripted", modelSource: { source: "injected", id: "offline" }, configuration: null, answerItemId: null } },
      { eventId: `${runId}/prompt`, runId, type: "user_message", payload: { message: { role: "user", content: `Process ${options.events} events` } } },
    ];
    for (let step = 0; batch.length < options.events - 1; step++) {
      const id = `call_${step}`;
      batch.push(
        { eventId: `${runId}/model/${step}`, runId, type: "assistant_message", payload: { message: { role: "assistant", content: [{ type: "text", text: `Step ${step}: reading item ${step}.` }, { type: "toolCall", id, name: "read", arguments: { path: `item-${step}.txt` } }] }, stopReason: "toolUse", step, attempt: 0 } },
        { eventId: `${runId}/tool/${id}/intent`, runId, type: "tool_intent", payload: { toolCallId: id, toolName: "read", arguments: { path: `item-${step}.txt` }, replay: "safe" } },
        { eventId: `${runId}/model/${step}/usage/0`, runId, type: "usage", payload: { entry: { entryId: `u-${step}`, runId, provider: "offline", model: "offline-scripted", at: 0, input: 100 + step, output: 20, cacheRead: 0, cacheWrite: 0, total: 120 + step } } },
        { eventId: `${runId}/tool/${id}/result`, runId, type: "tool_result", payload: { message: { role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: `contents of item ${step}` }], isError: false }, details: null } },
      );
    }
    batch.length = Math.min(batch.length, options.events - 1);
    batch.push({ eventId: `${runId}/end`, runId, type: "run_finished", payload: { status: "completed", toolCallCount: Math.floor(options.events / 4) } });
    for (let i = 0; i < batch.length; i += 1000) await store.append(batch.slice(i, i + 1000));
  } finally {
    await store.close();
  }
}
