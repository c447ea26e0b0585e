import { describe, expect, it } from "@jest/globals";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createAgent } from "../../src/app/agent/create-agent.js";
import { createAgentSessionHost } from "../../src/compose/session-host.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { conversation, tempDir } from "../session-host/helpers.js";

const drain = async (iterable: AsyncIterable<unknown>) => {
  for await (const _ of iterable) void _;
};

describe("EXT-6 sessions replaces the automatic session choice", () => {
  it("EXT-6 a run outside a conversation (automatically in memory) is written to the agent's sessions", async () => {
    const dir = tempDir("ext6-");
    const sessionStorage = createSqliteStorage({ directory: `${dir}/store`, agentStoreDir: `${dir}/agents` });
    const contextStorage = new MemoryStorage();
    const agent = createAgent({ models: createOfflineModel({ steps: [{ text: "Stored." }] }), workdir: dir, sessions: sessionStorage.sessions! });
    const context = createNodeContext({ projectId: "p1", storage: contextStorage, runId: "run-ext6" });
    await drain(agent.run({ prompt: "keep me" }, context));
    await sessionStorage.close();

    // A fresh storage on the same folder reads the run back: it went to the durable backend.
    const reopened = createSqliteStorage({ directory: `${dir}/store`, agentStoreDir: `${dir}/agents` });
    const store = await reopened.sessions!.openUnleased({ address: { projectId: "p1", sessionKey: "agent" }, create: false });
    expect(store).not.toBeNull();
    expect((await store!.readRun("run-ext6")).map((event) => event.type)).toEqual(["run_started", "user_message", "assistant_message", "usage", "run_finished"]);
    await store!.close();
    await reopened.close();
    // …and nothing went to the storage the automatic choice would have used.
    expect(await contextStorage.sessions!.openUnleased({ address: { projectId: "p1", sessionKey: "agent" }, create: false })).toBeNull();
  });

  it("EXT-6 the session host takes its lease, sessions and host record from sessions", async () => {
    const conv = conversation("ext6-host");
    const hostStorage = new MemoryStorage();
    const sessionStorage = new MemoryStorage();
    const host = await createAgentSessionHost(conv, {
      projectId: "p1",
      storage: hostStorage,
      models: createOfflineModel({ steps: [{ text: "Hosted." }] }),
      sessions: sessionStorage.sessions!,
    });
    const submitted = (await host.control({ type: "submit", prompt: "hi" })) as { taskId: string; runId: string };
    expect((await host.waitForTask(submitted.taskId)).status).toBe("completed");
    // The lease is held in the session's backend, not in the host storage's.
    expect(await sessionStorage.sessions!.leases.acquire({ projectId: "p1", conversationId: conv, sessionKey: "agent" }, { ownerId: "other" })).toBeNull();
    const elsewhere = await hostStorage.sessions!.leases.acquire({ projectId: "p1", conversationId: conv, sessionKey: "agent" }, { ownerId: "other" });
    expect(elsewhere).not.toBeNull();
    await elsewhere!.release();
    expect(await sessionStorage.sessions!.openHostStore(conv, { create: false })).not.toBeNull();
    expect(await hostStorage.sessions!.openHostStore(conv, { create: false })).toBeNull();
    const log = await sessionStorage.sessions!.openUnleased({ address: { projectId: "p1", conversationId: conv, sessionKey: "agent" }, create: false });
    expect((await log!.readRun(submitted.runId)).some((event) => event.type === "run_finished")).toBe(true);
    await host.close();
  });
});
