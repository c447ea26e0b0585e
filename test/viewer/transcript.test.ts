// UI-7 (issue 45 item 7): a conversation as a transcript — the domain's read model over a real
// durable SQLite session written by the real agent (offline model): messages, a tool call with its
// arguments and result, a compaction with its summary, an approval answered in the viewer after a
// wait with who answered and how long; who answered recorded where decisions are recorded; the
// viewer's JSON route over real HTTP on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import type { ViewerServer } from "../../src/adapters/driving/viewer/viewer-server.js";
import { viewerSessionId } from "../../src/adapters/driving/viewer/viewer-sessions.js";
import { createTerminalPorts } from "../../src/adapters/driving/chat/terminal-ports.js";
import { createStoredDecisions } from "../../src/adapters/driving/viewer/stored-decisions.js";
import { createAgentSessionHost } from "../../src/compose/session-host.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createProjectCapabilityTools } from "../../src/app/capabilities/project-capabilities.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { createViewerServer } from "../../src/compose/viewer.js";
import { answererOf } from "../../src/domain/agent/decision-answerer.js";
import type { SessionEvent } from "../../src/domain/agent/session-events.js";
import { buildTranscript, type TranscriptEntry } from "../../src/domain/agent/transcript.js";
import { createPrincipal } from "../../src/domain/principal.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { buildViewerAssets } from "../../ui/build.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { openStorage, PROJECT } from "./fixtures.js";
import { HOSTILE_PROMPT, SUMMARY, TRANSCRIPT_CONVERSATION, WAIT_MS, writeTranscriptConversation } from "./transcript-fixture.js";

let storage: SqliteStorage;
let viewer: ViewerServer;
const address = { projectId: PROJECT, conversationId: TRANSCRIPT_CONVERSATION, sessionKey: "agent" };
const s = viewerSessionId(address);
const answeredAt: number[] = [];

const get = (path: string, token: string | null = viewer.token) => fetch(`http://127.0.0.1:${viewer.port}${path}`, { headers: token === null ? {} : { "x-steamharness-token": token } });

async function eventsOf(conversationId: string): Promise<SessionEvent[]> {
  const store = await storage.sessions.openUnleased({ address: { ...address, conversationId }, create: false });
  try {
    return await store!.readAfter(0, { limit: 10_000 });
  } finally {
    await store!.close();
  }
}

/** An entry in one line: what the assertions compare. */
function line(entry: TranscriptEntry): string {
  switch (entry.type) {
    case "run":
      return `run ${entry.runId} ${entry.status}`;
    case "message":
      return `${entry.role}${entry.by ? ` (${entry.by})` : ""}: ${entry.text}`;
    case "tool":
      return `tool ${entry.name} ${JSON.stringify(entry.arguments)} → ${entry.result?.isError ? "error " : ""}${entry.result?.text.slice(0, 40) ?? "(no result)"}`;
    case "decision":
      return `${entry.kind} ${entry.subject}: ${entry.outcome} by ${entry.answeredBy?.surface ?? "?"}`;
    case "compaction":
      return `compaction (${entry.source}): ${entry.summary}`;
  }
}

beforeAll(async () => {
  const assets = tempDirRemovedAfterAll("transcript-assets-");
  await buildViewerAssets(assets);
  storage = openStorage(tempDirRemovedAfterAll("transcript-store-"));
  viewer = await createViewerServer({ storage, assetsDirectory: assets });
  // The approval is answered the way a person does it: a POST from the viewer's page.
  const statuses = await writeTranscriptConversation(storage, async (runId, requestId) => {
    const response = await fetch(`http://127.0.0.1:${viewer.port}/api/answer`, { method: "POST", headers: { "content-type": "application/json", "x-steamharness-token": viewer.token }, body: JSON.stringify({ s, runId, requestId, outcome: "approved" }) });
    expect(response.status).toBe(200);
    answeredAt.push(Date.now());
  });
  expect(statuses).toEqual(["completed", "user_input_required", "completed"]);
}, 120_000);

afterAll(async () => {
  await viewer?.close();
  await storage?.close();
});

describe("UI-7 the viewer shows a conversation as a transcript", () => {
  it("UI-7 the read model lists messages, tool calls with results, the compaction's summary and the approval with who answered and the wait, in order across runs", async () => {
    const events = await eventsOf(TRANSCRIPT_CONVERSATION);
    const entries = buildTranscript(events);
    const lines = entries.map(line);
    expect(lines.slice(0, 3)).toEqual(["run run-note completed", "user: Note the goal: ship 1.0", "assistant: I'll note the goal."]);
    expect(lines[3]).toMatch(/^tool workflow-kv_kv_store \{"action":"set","key":"goal","value":"ship 1\.0"\} → (?!error)/);
    expect(lines.slice(4)).toEqual([
      `compaction (model): ${SUMMARY}`,
      "assistant: Noted: ship 1.0.",
      "run run-delete completed",
      `user: ${HOSTILE_PROMPT}`,
      "assistant: Deleting it.",
      expect.stringMatching(/^tool workflow-kv_kv_store \{"action":"delete","key":"goal"\} → (?!error)/),
      "tool_approval workflow-kv_kv_store: approved by viewer",
      "assistant: The goal is deleted.",
    ]);
    expect(entries[2]).toMatchObject({ reasoning: "Store it first." });

    // The wait: from the wait event to the moment the person answered (not when the run took it up).
    const decision = entries.find((entry) => entry.type === "decision")!;
    const wait = events.find((event) => event.type === "approval_wait")!;
    const taken = events.find((event) => event.type === "approval_decision")!;
    expect(decision).toMatchObject({ kind: "tool_approval", toolCallId: "call_delete", outcome: "approved", askedAt: wait.at, answeredBy: { surface: "viewer" } });
    expect(decision.answeredAt).toBe(decision.answeredBy!.at);
    expect(decision.answeredAt!).toBeLessThanOrEqual(answeredAt[0]!);
    expect(decision.answeredAt!).toBeLessThanOrEqual(taken.at);
    expect(decision.waitMs).toBe(decision.answeredAt! - wait.at);
    expect(decision.waitMs!).toBeGreaterThanOrEqual(WAIT_MS);
    // Who answered is in the run's own log, kept with the decision.
    expect(taken.payload).toMatchObject({ outcome: "approved", answeredBy: { surface: "viewer", at: decision.answeredAt } });

    const compaction = entries.find((entry) => entry.type === "compaction")!;
    expect(compaction).toMatchObject({ manual: false, source: "model", usedBefore: expect.any(Number) });

    // A prefix of the log is a transcript too: the second run as it waited.
    const waiting = buildTranscript(events.filter((event) => event.seq <= wait.seq + 1));
    expect(waiting.filter((entry) => entry.type === "run").map(line)).toEqual(["run run-note completed", "run run-delete waiting"]);
    expect(waiting.at(-1)).toMatchObject({ type: "decision", outcome: null, answeredBy: null, answeredAt: null, waitMs: null });
  });

  it("UI-7 who answered comes from the answering port and is recorded with the decision (a remote principal; unknown fields dropped)", async () => {
    const principal = createPrincipal({ source: "key", surface: "gateway", tenantId: "acme", subject: "alice", credentialId: "key-1" });
    const node = createAgentNode({
      models: createOfflineModel({ steps: [{ toolCalls: [{ id: "call_x", name: "workflow-kv_kv_store", arguments: { action: "set", key: "k", value: 1 } }] }, { text: "Set." }] }),
      workdir: process.cwd(),
      retryDelayMs: 0,
      createTools: (context) => createProjectCapabilityTools({ context }),
    });
    const context = createNodeContext({
      projectId: PROJECT,
      storage,
      runId: "run-inline",
      conversationId: "conv-inline",
      toolCatalog: [{ id: "workflow-kv_kv_store" }],
      // A host's port that decides at once and says who did, with a field the log must not keep.
      toolPermissions: { request: async () => ({ outcome: "approved", answeredBy: { ...answererOf(principal, 1234), token: "secret" } as never }) },
    });
    await runStreamNode(node, { prompt: "Set k", runId: "run-inline" }, context);
    const events = await eventsOf("conv-inline");
    expect(events.find((event) => event.type === "approval_decision")!.payload).toMatchObject({ outcome: "approved", answeredBy: { surface: "gateway", tenant: "key:acme", subject: "alice", at: 1234 } });
    expect(JSON.stringify(events)).not.toContain("secret");
    const decision = buildTranscript(events).find((entry) => entry.type === "decision")!;
    expect(decision).toMatchObject({ outcome: "approved", answeredBy: { surface: "gateway", tenant: "key:acme", subject: "alice" }, answeredAt: 1234 });
  });

  it("UI-7 an approval answered at the chat terminal's prompt is recorded as answered by chat, its wait the time at the prompt", async () => {
    const { toolPermissions, userInput } = createTerminalPorts(async () => {
      await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
      return "y";
    }, { write: () => {} });
    const node = createAgentNode({
      models: createOfflineModel({ steps: [{ toolCalls: [{ id: "call_t", name: "workflow-kv_kv_store", arguments: { action: "set", key: "t", value: 1 } }] }, { text: "Set." }] }),
      workdir: process.cwd(),
      retryDelayMs: 0,
      createTools: (context) => createProjectCapabilityTools({ context }),
    });
    const context = createNodeContext({ projectId: PROJECT, storage, runId: "run-terminal", conversationId: "conv-terminal", toolCatalog: [{ id: "workflow-kv_kv_store" }], toolPermissions, userInput });
    await runStreamNode(node, { prompt: "Set t", runId: "run-terminal" }, context);
    const decision = buildTranscript(await eventsOf("conv-terminal")).find((entry) => entry.type === "decision")!;
    expect(decision).toMatchObject({ kind: "tool_approval", subject: "workflow-kv_kv_store", outcome: "approved", answeredBy: { surface: "chat" } });
    expect(decision.waitMs!).toBeGreaterThanOrEqual(WAIT_MS - 5);
  });

  it("UI-7 a question answered in the viewer while a session host holds the conversation: the host's continue carries who answered into the run's decision", async () => {
    const decisions = createStoredDecisions({ values: storage.values, projectId: PROJECT });
    const host = await createAgentSessionHost("conv-host-question", {
      projectId: PROJECT,
      storage,
      models: createOfflineModel({ steps: [{ text: "One question.", toolCalls: [{ id: "q1", name: "ask_user", arguments: { question: "Which colour?" } }] }, { text: "Blue it is." }] }),
      workdir: process.cwd(),
      toolPermissions: decisions.toolPermissions,
      userInput: decisions.userInput,
      retryDelayMs: 0,
    });
    try {
      const { taskId, runId } = (await host.control({ type: "submit", prompt: "Paint it" })) as { taskId: string; runId: string };
      expect((await host.waitForTask(taskId)).status).toBe("waiting");
      const hostS = viewerSessionId({ ...address, conversationId: "conv-host-question" });
      const wait = (await eventsOf("conv-host-question")).find((event) => event.type === "approval_wait")!;
      const requestId = wait.type === "approval_wait" ? wait.payload.requestId : "";
      const response = await fetch(`http://127.0.0.1:${viewer.port}/api/answer`, { method: "POST", headers: { "content-type": "application/json", "x-steamharness-token": viewer.token }, body: JSON.stringify({ s: hostS, runId, requestId, outcome: "answered", answer: "blue" }) });
      expect(await response.json()).toMatchObject({ recorded: true, resumed: "host" });
      expect((await host.waitForTask(taskId)).status).toBe("completed");
    } finally {
      await host.close();
    }
    const entries = buildTranscript(await eventsOf("conv-host-question"));
    expect(entries.find((entry) => entry.type === "decision")).toMatchObject({ kind: "question", subject: "Which colour?", outcome: "answered", answer: "blue", answeredBy: { surface: "viewer", at: expect.any(Number) } });
    expect(entries.filter((entry) => entry.type === "message").map(line)).toEqual(["user: Paint it", "assistant: One question.", "assistant: Blue it is."]);
  });

  it("UI-7 GET /api/transcript serves the transcript over HTTP with the session's names, under the viewer's token rules", async () => {
    const response = await get(`/api/transcript?s=${s}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: string; address: unknown; lastSeq: number; conversationTitle: string; entries: TranscriptEntry[] };
    const events = await eventsOf(TRANSCRIPT_CONVERSATION);
    expect(body).toMatchObject({ id: s, address, lastSeq: events.at(-1)!.seq, conversationTitle: "Note the goal: ship 1.0" });
    expect(body.entries).toEqual(JSON.parse(JSON.stringify(buildTranscript(events))));

    // The log grows (another run in the session): the next read folds in only what was appended.
    const node = createAgentNode({ models: createOfflineModel({ steps: () => ({ text: "Anything else?" }) }), workdir: process.cwd(), retryDelayMs: 0 });
    await runStreamNode(node, { prompt: "Thanks", runId: "run-more" }, createNodeContext({ projectId: PROJECT, storage, runId: "run-more", conversationId: TRANSCRIPT_CONVERSATION }));
    const grown = (await (await get(`/api/transcript?s=${s}`)).json()) as typeof body;
    const all = await eventsOf(TRANSCRIPT_CONVERSATION);
    expect(grown.lastSeq).toBe(all.at(-1)!.seq);
    expect(grown.entries).toEqual(JSON.parse(JSON.stringify(buildTranscript(all))));
    expect(grown.entries.slice(-3).map(line)).toEqual(["run run-more completed", "user: Thanks", "assistant: Anything else?"]);

    expect((await get(`/api/transcript?s=${s}`, null)).status).toBe(401);
    expect((await get(`/api/transcript?s=${s}`, "wrong")).status).toBe(401);
    const bad = await get("/api/transcript?s=not-an-id");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "input_validation", field: "s" } });
    expect((await get(`/api/transcript?s=${viewerSessionId({ ...address, conversationId: "conv-none" })}`)).status).toBe(404);
  });
});
