import { describe, expect, it } from "@jest/globals";
import { createSqliteSessionLeaseProvider } from "../../src/adapters/sqlite-session/sqlite-session-lease.js";
import { createSqliteSessionStore } from "../../src/adapters/sqlite-session/sqlite-session-store.js";
import { resolveSessionDatabasePath } from "../../src/adapters/sqlite-session/session-database-path.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { createAgentSessionHost } from "../../src/session-host/create-agent-session-host.js";
import { controlAgentSession } from "../../src/session-host/control.js";
import { collect, conversation, gateTool, tempDir, waitForFile } from "./helpers.js";
import path from "node:path";
import { writeFileSync } from "node:fs";

const executorTools = [{ id: "slow_step", autoApprove: true }];

describe("resident session host", () => {
  it("HOST-1 submit runs a task; the host keeps lease, tools and model between turns", async () => {
    const dir = tempDir();
    const conv = conversation("basic");
    const model = createOfflineModel({ steps: [{ text: "First answer." }, { text: "Second answer." }] });
    let toolBuilds = 0;
    const host = await createAgentSessionHost(conv, {
      projectId: "p1", agentStoreDir: dir, models: model, workdir: dir, executorTools,
      createTools: () => { toolBuilds++; return [gateTool(dir)]; },
    });
    const out = collect();
    host.subscribe(out.listener);
    const first = await controlAgentSession(conv, { type: "submit", prompt: "hello" });
    expect(first).toMatchObject({ type: "submit", created: true, targetId: 0 });
    const done = await host.waitForTask((first as { taskId: string }).taskId);
    expect(done.status).toBe("completed");
    // Between turns the lease is still held: nobody else may execute the session.
    const leases = createSqliteSessionLeaseProvider({ agentStoreDir: dir });
    expect(await leases.acquire({ projectId: "p1", conversationId: conv, sessionKey: "agent" }, { ownerId: "other" })).toBeNull();
    const second = (await host.control({ type: "submit", prompt: "again" })) as { taskId: string };
    expect((await host.waitForTask(second.taskId)).status).toBe("completed");
    expect(toolBuilds).toBe(1);
    expect(model.calls).toHaveLength(2);
    // The second turn sees the first one's history.
    expect(model.calls[1]!.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    const snapshot = await host.snapshot();
    expect(snapshot.metadata.kind).toBe("agent-session");
    const content = snapshot.content as { turns: Array<{ usage: { total: number }; status: string }>; contexts: Array<{ outputs: Array<{ display: unknown }> }> };
    expect(content.turns.map((turn) => turn.status)).toEqual(["completed", "completed"]);
    expect(content.turns.every((turn) => turn.usage.total > 0)).toBe(true);
    expect(content.contexts[0]!.outputs[0]!.display).toEqual({ type: "ring", placement: "composer-right" });
    // Streamed items: one agent-session item (the host snapshot), never body text.
    const items = out.items();
    expect(items.filter((item) => item.metadata.kind === "agent-session")).toHaveLength(1);
    await host.close();
    const after = await leases.acquire({ projectId: "p1", conversationId: conv, sessionKey: "agent" }, { ownerId: "other" });
    expect(after).not.toBeNull();
    await after!.release();
  });
});
