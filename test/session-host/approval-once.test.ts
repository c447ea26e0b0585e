import { describe, expect, it } from "@jest/globals";
import type { MemoryToolPermissions } from "../../src/adapters/memory/memory-tool-permissions.js";
import { createSqliteStorage } from "../../src/adapters/sqlite/store/sqlite-storage.js";
import { createProjectCapabilityTools } from "../../src/capabilities/project-capabilities.js";
import { createToolApprovalGate } from "../../src/domain/approval-gate.js";
import type { NodeContext } from "../../src/domain/node-context.js";
import { createAgentSessionHost } from "../../src/session-host/create-agent-session-host.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { conversation, tempDir } from "./helpers.js";

const KV = "workflow-kv_kv_store";

describe("CAP-11 one approval per call in a resident session host", () => {
  it("CAP-11 a host opened without toolPermissions, tools wired as the capability seed's example: one request per call, and its decision runs the call", async () => {
    const dir = tempDir();
    const storage = createSqliteStorage({ directory: `${dir}/store`, agentStoreDir: `${dir}/agents` });
    const model = createOfflineModel({
      steps: [{ toolCalls: [{ id: "call-kv", name: KV, arguments: { action: "set", key: "notes.status", value: "done" } }] }, { text: "Saved." }],
    });
    // The seed's example, verbatim but for the model; the host passes no toolPermissions.
    const approval = createToolApprovalGate();
    let toolsContext: NodeContext | undefined;
    const host = await createAgentSessionHost(conversation("approve-once"), {
      projectId: "p1",
      storage,
      models: model,
      workdir: dir,
      executorTools: [{ id: KV }],
      async createTools(context) {
        toolsContext = context;
        return createProjectCapabilityTools({ context, globalMemory: true, approve: (toolId, args) => approval.approve({ name: toolId, arguments: args }, context) });
      },
    });
    try {
      // The host's approval port: the one its tools' context carries, and (one per host) every run's.
      const permissions = toolsContext!.toolPermissions as MemoryToolPermissions;
      const { taskId } = (await host.control({ type: "submit", prompt: "Save the status" })) as { taskId: string };
      expect((await host.waitForTask(taskId)).status).toBe("waiting");
      expect(permissions.requests).toHaveLength(1);
      const [request] = permissions.requests;
      expect(request).toMatchObject({ toolId: KV, toolCallId: "call-kv" });

      permissions.resolve(request!.requestId, { outcome: "approved" });
      await host.control({ type: "continue", taskId });
      expect((await host.waitForTask(taskId)).status).toBe("completed");
      // The resume reads the same request's decision; the tool's own gate never asks a second one.
      expect(new Set(permissions.requests.map((entry) => entry.requestId))).toEqual(new Set([request!.requestId]));
      expect(permissions.pending()).toEqual([]);
      expect((await storage.kv.get({ projectId: "p1" }, "notes.status"))?.value).toBe("done");
    } finally {
      await host.close();
      await storage.close();
    }
  });

  it("CAP-11 CAP-3 a tool declared only in the host's toolDefinitions finds itself in its tools' context when it asks the gate", async () => {
    const dir = tempDir();
    const storage = createSqliteStorage({ directory: `${dir}/store`, agentStoreDir: `${dir}/agents` });
    const model = createOfflineModel({
      steps: [{ toolCalls: [{ id: "call-kv", name: KV, arguments: { action: "set", key: "notes.status", value: "defined" } }] }, { text: "Saved." }],
    });
    const approval = createToolApprovalGate();
    let toolsContext: NodeContext | undefined;
    const host = await createAgentSessionHost(conversation("approve-defined"), {
      projectId: "p1",
      storage,
      models: model,
      workdir: dir,
      // No executorTools: the agent's own toolDefinitions declare the tool.
      toolDefinitions: [{ id: KV }],
      async createTools(context) {
        toolsContext = context;
        return createProjectCapabilityTools({ context, globalMemory: true, approve: (toolId, args) => approval.approve({ name: toolId, arguments: args }, context) });
      },
    });
    try {
      expect(toolsContext!.executor.tools.map((tool) => tool.id)).toEqual([KV]);
      const permissions = toolsContext!.toolPermissions as MemoryToolPermissions;
      const { taskId } = (await host.control({ type: "submit", prompt: "Save the status" })) as { taskId: string };
      expect((await host.waitForTask(taskId)).status).toBe("waiting");
      const [request] = permissions.requests;
      permissions.resolve(request!.requestId, { outcome: "approved" });
      await host.control({ type: "continue", taskId });
      expect((await host.waitForTask(taskId)).status).toBe("completed");
      expect(new Set(permissions.requests.map((entry) => entry.requestId))).toEqual(new Set([request!.requestId]));
      expect((await storage.kv.get({ projectId: "p1" }, "notes.status"))?.value).toBe("defined");
    } finally {
      await host.close();
      await storage.close();
    }
  });
});
