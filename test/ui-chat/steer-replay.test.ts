import { describe, expect, it } from "@jest/globals";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { createSqliteSessionStore } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-store.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { runNode } from "../agent/helpers.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

const userTexts = (request: ModelRequest): string[] =>
  request.messages.filter((message) => message.role === "user").map((message) => (typeof message.content === "string" ? message.content : message.content.map((block) => block.text).join("")));

describe("UI-5 a steered message is delivered exactly once, where the run first took it", () => {
  it("UI-5 a run that stops after committing a steered message but before marking it delivered takes it from its log on resume, at the same boundary and once, and marks it delivered then", async () => {
    const storage = createSqliteStorage({ directory: tempDirRemovedAfterAll("steer-replay-store-") });
    const seen: string[][] = [];
    const offline = createOfflineModel({ steps: [{ text: "looking ", toolCalls: [{ name: "no_such_tool", arguments: {} }] }, { text: "done" }] });
    const node = createAgentNode({ models: { descriptor: offline.descriptor, stream: (request, signal) => (seen.push(userTexts(request)), offline.stream(request, signal)) }, workdir: tempDirRemovedAfterAll("steer-replay-"), retryDelayMs: 0 });
    const context = () => createNodeContext({ projectId: "p", conversationId: "c", storage, runId: "run-1", toolPermissions: createMemoryToolPermissions() });
    const queued = [{ id: "s1", text: "use the other file" }];
    // The first attempt dies between the commit and the delivery mark (a crash of the host).
    const crashed = await runNode(node, { prompt: "go", steering: { pending: async () => queued, delivered: async () => Promise.reject(new Error("crash")) } }, context());
    expect(crashed.error).toBeDefined();
    expect(seen).toEqual([["go"]]);
    const delivered: string[][] = [];
    // The resumed run takes it from its log where it was taken, whatever the queue holds now (here a new message that must wait for the next boundary).
    const later = [{ id: "s2", text: "too late for this boundary" }];
    const resumed = await runNode(node, { prompt: "go", steering: { pending: async () => later, delivered: async (ids) => void delivered.push([...ids]) } }, context());
    expect(resumed.error).toBeUndefined();
    expect(seen).toEqual([["go"], ["go", "use the other file"]]);
    expect(delivered).toEqual([["s1"]]);
    const log = createSqliteSessionStore({ path: resolveSessionDatabasePath({ agentStoreDir: storage.agentStoreDir, conversationId: "c", sessionKey: "agent" }), address: { projectId: "p", conversationId: "c", sessionKey: "agent" } });
    try {
      const steered = (await log.readRun("run-1")).filter((event) => event.type === "user_message" && event.payload.steer);
      expect(steered.map((event) => event.eventId)).toEqual(["run-1/steer/0/s1"]);
    } finally {
      await log.close();
      await storage.close();
    }
  });
});
