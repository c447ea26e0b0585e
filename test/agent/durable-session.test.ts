import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { createSqliteSessionLeaseProvider } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-lease.js";
import { resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { isSteamharnessError, UserInputRequiredError } from "../../src/domain/errors.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { runNode } from "./helpers.js";

const steps = [{ text: "Writing.", toolCalls: [{ id: "w", name: "write", arguments: { path: "d.txt", content: "durable" } }] }, { text: "Written." }];

describe("durable sessions through the agent", () => {
  it("SES-1 SES-8 a conversation run on a storage with agentStoreDir pauses into its SQLite file and a fresh agent resumes it", async () => {
    const root = tempDirRemovedAfterAll("agent-durable-");
    const workdir = tempDirRemovedAfterAll("agent-durable-work-");
    const storage = createSqliteStorage({ directory: root });
    const permissions = createMemoryToolPermissions();
    const context = () => createNodeContext({ projectId: "p", conversationId: "conv 会话", storage, runId: "run-durable", toolPermissions: permissions });
    try {
      const firstModel = createOfflineModel({ steps });
      const first = await runNode(createAgentNode({ models: firstModel, workdir, permissionPolicy: "ask" }), { prompt: "write" }, context());
      const pause = first.error as UserInputRequiredError;
      expect(pause).toBeInstanceOf(UserInputRequiredError);
      const file = resolveSessionDatabasePath({ agentStoreDir: storage.agentStoreDir, conversationId: "conv 会话", sessionKey: "agent" });
      expect(existsSync(file)).toBe(true);

      permissions.resolve(pause.requestId, { outcome: "approved" });
      // A new node and model: nothing carried over in memory, everything comes from the file.
      const secondModel = createOfflineModel({ steps });
      const second = await runNode(createAgentNode({ models: secondModel, workdir, permissionPolicy: "ask" }), { prompt: "write" }, context());
      expect(second.error).toBeUndefined();
      expect(secondModel.calls).toHaveLength(1);
      expect(second.items.slice(0, first.items.length).map((item) => item.id)).toEqual(first.items.map((item) => item.id));
      expect(readdirSync(workdir)).toEqual(["d.txt"]);

      // Re-sent once more: the same items, no model call (SES-3 across agents).
      const thirdModel = createOfflineModel({ steps });
      const third = await runNode(createAgentNode({ models: thirdModel, workdir, permissionPolicy: "ask" }), { prompt: "write" }, context());
      expect(third.items).toEqual(second.items);
      expect(thirdModel.calls).toHaveLength(0);
    } finally {
      await storage.close();
    }
  });

  it("SES-2 a run on a session whose lease is held elsewhere fails with session_busy and an agent-error item", async () => {
    const root = tempDirRemovedAfterAll("agent-busy-");
    const storage = createSqliteStorage({ directory: root });
    try {
      const file = resolveSessionDatabasePath({ agentStoreDir: storage.agentStoreDir, conversationId: "c", sessionKey: "agent" });
      const lease = await createSqliteSessionLeaseProvider().acquire({ databasePath: file }, { ownerId: "other-owner" });
      expect(lease).not.toBeNull();
      const model = createOfflineModel({ steps: [{ text: "never" }] });
      const result = await runNode(createAgentNode({ models: model }), { prompt: "p" }, createNodeContext({ projectId: "p", conversationId: "c", storage, runId: "run-busy" }));
      expect(isSteamharnessError(result.error, "session_busy")).toBe(true);
      expect(result.items.filter((item) => item.metadata.kind === "agent-error")).toHaveLength(1);
      expect(model.calls).toHaveLength(0);
      await lease!.release();
      const after = await runNode(createAgentNode({ models: model }), { prompt: "p" }, createNodeContext({ projectId: "p", conversationId: "c", storage, runId: "run-free" }));
      expect(after.error).toBeUndefined();
    } finally {
      await storage.close();
    }
  });

  it("SES-6 runs outside a conversation and gateway runs with hostInput stay in memory", async () => {
    const root = tempDirRemovedAfterAll("agent-mem-");
    const storage = createSqliteStorage({ directory: root });
    try {
      const model = createOfflineModel({ steps: [{ text: "ok" }] });
      await runNode(createAgentNode({ models: model }), { prompt: "p" }, createNodeContext({ projectId: "p", storage, runId: "run-no-conv" }));
      await runNode(createAgentNode({ models: model }), { prompt: "p", hostInput: { q: 1 } }, createNodeContext({ projectId: "p", conversationId: "c", storage, runId: "run-gateway" }));
      expect(existsSync(storage.agentStoreDir!)).toBe(false);
    } finally {
      await storage.close();
    }
  });

  it("SES-2 an in-memory session has one owner at a time within the process", async () => {
    const storage = new MemoryStorage();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const blocking: AgentTool = {
      name: "block", label: "Block", description: "waits", parameters: Type.Object({}),
      async execute() {
        await gate;
        return { content: [{ type: "text", text: "released" }] };
      },
    };
    const node = createAgentNode({ models: createOfflineModel({ steps: [{ toolCalls: [{ name: "block", arguments: {} }] }, { text: "done" }] }), extraTools: [blocking], extraToolCatalog: [{ id: "block", autoApprove: true }] });
    const first = runNode(node, { prompt: "p" }, createNodeContext({ projectId: "p", storage, runId: "run-owner" }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await runNode(node, { prompt: "p" }, createNodeContext({ projectId: "p", storage, runId: "run-contender" }));
    expect(isSteamharnessError(second.error, "session_busy")).toBe(true);
    release();
    expect((await first).error).toBeUndefined();
    const third = await runNode(node, { prompt: "p" }, createNodeContext({ projectId: "p", storage, runId: "run-contender" }));
    expect(third.error).toBeUndefined();
  });
});

describe("OUT-8 turns[].items and contexts[] of a plain durable run", () => {
  it("OUT-8 the agent-session item of a durable createAgentNode run carries contexts[] and turns[].items; live output, turns[].items and restored history keep one order", async () => {
    const root = tempDirRemovedAfterAll("agent-turn-items-");
    const workdir = tempDirRemovedAfterAll("agent-turn-items-work-");
    const storage = createSqliteStorage({ directory: root });
    const context = () => createNodeContext({ projectId: "p", conversationId: "conv-items", storage, runId: "run-items" });
    const script = [
      { text: "Listing first.", toolCalls: [{ id: "l", name: "ls", arguments: { path: "." } }], error: { message: "terminated", kind: "dropped" as const } },
      { text: "Nothing here." },
    ];
    try {
      const node = createAgentNode({ models: createOfflineModel({ steps: script }), workdir, permissionPolicy: "read-only", retryDelayMs: 0 });
      const live = await runNode(node, { prompt: "look" }, context());
      expect(live.error).toBeUndefined();
      const body = (items: typeof live.items) => items.filter((item) => item.metadata.kind !== "agent-session" && item.display?.type !== "ring");
      const session = live.items.find((item) => item.metadata.kind === "agent-session")!.content as any;
      expect(session.contexts).toHaveLength(1);
      expect(session.contexts[0].outputs[0]).toMatchObject({ display: { type: "ring", placement: "composer-right" } });
      expect(session.turns).toHaveLength(1);
      expect(session.turns[0]).toMatchObject({ runId: "run-items", prompt: "look", status: "completed" });
      const turnItems = session.turns[0].items;
      expect(turnItems.map((item: any) => item.metadata.partType)).toEqual(["retry", "text", "tool", "text"]);
      expect(turnItems).toEqual(body(live.items));
      // Readable on the payload for programs (the ring is what hosts show).
      expect(live.output!.contextUsage).toEqual(session.contextUsage);
      expect(live.output!.contextUsage!.used).toBeGreaterThan(0);

      // Restored from the session file by a fresh node: the same items in the same order.
      const restored = await runNode(createAgentNode({ models: createOfflineModel({ steps: [] }), workdir, permissionPolicy: "read-only" }), { prompt: "look" }, context());
      expect(body(restored.items)).toEqual(body(live.items));
      expect((restored.items.find((item) => item.metadata.kind === "agent-session")!.content as any).turns[0].items).toEqual(turnItems);
    } finally {
      await storage.close();
    }
  });
});
