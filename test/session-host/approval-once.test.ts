import { describe, expect, it } from "@jest/globals";
import type { MemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createProjectCapabilityTools } from "../../src/app/capabilities/project-capabilities.js";
import { createToolApprovalGate } from "../../src/domain/approval-gate.js";
import type { NodeContext } from "../../src/domain/node-context.js";
import { createAgentSessionHost } from "../../src/compose/session-host.js";
import type { AgentSessionHostOptions } from "../../src/compose/session-host.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { conversation, tempDir } from "./helpers.js";

const KV = "workflow-kv_kv_store";

/**
 * A host whose model sets `notes.status` to `value` once, with the capability tools wired as the
 * capability seed's example shows (verbatim but for the model); the host passes no
 * toolPermissions. `declare` says where KV is declared (toolCatalog or extraToolCatalog).
 */
async function seedWiredHost(name: string, value: string, declare: Pick<AgentSessionHostOptions, "toolCatalog" | "extraToolCatalog">) {
  const dir = tempDir();
  const storage = createSqliteStorage({ directory: `${dir}/store`, agentStoreDir: `${dir}/agents` });
  const model = createOfflineModel({
    steps: [{ toolCalls: [{ id: "call-kv", name: KV, arguments: { action: "set", key: "notes.status", value } }] }, { text: "Saved." }],
  });
  const approval = createToolApprovalGate();
  let toolsContext: NodeContext | undefined;
  const host = await createAgentSessionHost(conversation(name), {
    projectId: "p1",
    storage,
    models: model,
    workdir: dir,
    ...declare,
    async createTools(context) {
      toolsContext = context;
      return createProjectCapabilityTools({ context, globalMemory: true, approve: (toolId, args) => approval.approve({ name: toolId, arguments: args }, context) });
    },
  });
  return { host, storage, toolsContext: toolsContext! };
}

/** Submits the turn, approves the one request, continues: the task completes on that decision alone. */
async function approveOnce(seeded: Awaited<ReturnType<typeof seedWiredHost>>, value: string): Promise<void> {
  const { host, storage, toolsContext } = seeded;
  try {
    // The host's approval port: the one its tools' context carries, and (one per host) every run's.
    const permissions = toolsContext.toolPermissions as MemoryToolPermissions;
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
    expect((await storage.kv.get({ projectId: "p1" }, "notes.status"))?.value).toBe(value);
  } finally {
    await host.close();
    await storage.close();
  }
}

describe("CAP-11 one approval per call in a resident session host", () => {
  it("CAP-11 a host opened without toolPermissions, tools wired as the capability seed's example: one request per call, and its decision runs the call", async () => {
    await approveOnce(await seedWiredHost("approve-once", "done", { toolCatalog: [{ id: KV }] }), "done");
  });

  it("CAP-11 CAP-3 a tool declared only in the host's extraToolCatalog finds itself in its tools' context when it asks the gate", async () => {
    const seeded = await seedWiredHost("approve-defined", "defined", { extraToolCatalog: [{ id: KV }] });
    expect(seeded.toolsContext.toolCatalog.map((tool) => tool.id)).toEqual([KV]);
    await approveOnce(seeded, "defined");
  });
});
