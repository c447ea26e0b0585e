// The conversation the UI-7 transcript tests read, written by the real agent with the offline
// model on a real SQLite storage: a run whose KV tool call fills the context so the session is
// compacted before the answer, then a run whose KV call waits for an approval, answered after a
// wait by `answer` (the viewer's HTTP route, or the stored-decision port), and run again.
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createStoredDecisions } from "../../src/adapters/driving/viewer/stored-decisions.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { COMPACTION_PROMPT } from "../../src/app/agent/compaction-step.js";
import { createProjectCapabilityTools } from "../../src/app/capabilities/project-capabilities.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { PROJECT } from "./fixtures.js";

export const TRANSCRIPT_CONVERSATION = "conv-transcript";
export const SUMMARY = "The user set the goal to ship 1.0 in the KV store.";
/** A prompt a page must show as text, never as markup. */
export const HOSTILE_PROMPT = `Delete the goal <img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>`;
/** How long the approval waits before it is answered, at least (ms). */
export const WAIT_MS = 150;

const SCRIPT: OfflineStep[] = [
  { text: "I'll note the goal.", reasoning: "Store it first.", toolCalls: [{ id: "call_set", name: "workflow-kv_kv_store", arguments: { action: "set", key: "goal", value: "ship 1.0" } }], usage: { input: 3700, output: 20 } },
  { text: "Noted: ship 1.0.", usage: { input: 60, output: 6 } },
  { text: "Deleting it.", toolCalls: [{ id: "call_delete", name: "workflow-kv_kv_store", arguments: { action: "delete", key: "goal" } }], usage: { input: 80, output: 8 } },
  { text: "The goal is deleted.", usage: { input: 90, output: 6 } },
];

async function run(storage: SqliteStorage, node: ReturnType<typeof createAgentNode>, runId: string, prompt: string, catalog: Array<{ id: string; autoApprove?: boolean }>): Promise<string> {
  const decisions = createStoredDecisions({ values: storage.values, projectId: PROJECT });
  const context = createNodeContext({ projectId: PROJECT, storage, runId, conversationId: TRANSCRIPT_CONVERSATION, toolCatalog: catalog, toolPermissions: decisions.toolPermissions, userInput: decisions.userInput });
  try {
    await runStreamNode(node, { prompt, runId }, context);
    return "completed";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/**
 * Writes the conversation; `answer(runId, requestId)` approves the waiting KV delete. Resolves the
 * statuses of the three runs (the second run twice: paused, then run again).
 *
 * @example
 * await writeTranscriptConversation(storage, (runId, requestId) => postAnswer(runId, requestId));
 */
export async function writeTranscriptConversation(storage: SqliteStorage, answer: (runId: string, requestId: string) => Promise<void>): Promise<string[]> {
  let served = 0;
  const model = createOfflineModel({
    contextWindow: 4000,
    chunkSize: 64,
    steps: (request: ModelRequest) => (request.systemPrompt === COMPACTION_PROMPT ? { text: SUMMARY, usage: { input: 120, output: 12 } } : (SCRIPT[served++] ?? { text: "(end)" })),
  });
  // One node for every run, as a host keeps it.
  const node = createAgentNode({ models: model, workdir: process.cwd(), retryDelayMs: 0, createTools: (context) => createProjectCapabilityTools({ context }) });
  const statuses = [await run(storage, node, "run-note", "Note the goal: ship 1.0", [{ id: "workflow-kv_kv_store", autoApprove: true }])];
  // Declared without autoApprove: the call asks the stored-decision port and the run pauses.
  const asking = [{ id: "workflow-kv_kv_store" }];
  statuses.push(await run(storage, node, "run-delete", HOSTILE_PROMPT, asking));
  const store = await storage.sessions.openUnleased({ address: { projectId: PROJECT, conversationId: TRANSCRIPT_CONVERSATION, sessionKey: "agent" }, create: false });
  const [wait] = await store!.readAfter(0, { types: ["approval_wait"] });
  await store!.close();
  if (wait?.type !== "approval_wait") throw new Error("the delete did not wait for an approval");
  await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
  await answer("run-delete", wait.payload.requestId);
  statuses.push(await run(storage, node, "run-delete", HOSTILE_PROMPT, asking));
  return statuses;
}
