import { describe, expect, it } from "@jest/globals";
import path from "node:path";
import { writeFileSync } from "node:fs";
import { controlAgentSession, createAgentSessionHost } from "../../src/compose/session-host.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { conversation, gateTool, tempDir, waitForFile } from "../session-host/helpers.js";

describe("UI-5 the session host's steer command (the library side of steer)", () => {
  it("UI-5 steer during a tool call joins that run after the tool result, before the next model call; its task completes as delivered and never runs on its own", async () => {
    const dir = tempDir();
    const conv = conversation("steer");
    const model = createOfflineModel({ steps: [{ text: "Working.", toolCalls: [{ name: "slow_step", arguments: { step: "a" } }] }, { text: "Done, with the steer." }, { text: "Next turn." }] });
    const host = await createAgentSessionHost(conv, { projectId: "p1", agentStoreDir: dir, models: model, workdir: dir, toolCatalog: [{ id: "slow_step", autoApprove: true }], createTools: () => [gateTool(dir)] });
    try {
      const first = (await controlAgentSession(conv, { type: "submit", prompt: "start" })) as { taskId: string; runId: string };
      await waitForFile(path.join(dir, "slow_step.started"));
      const steer = await controlAgentSession(conv, { type: "steer", prompt: "also check b", taskId: "steer-1" });
      expect(steer).toEqual({ type: "steer", taskId: "steer-1", runId: "run-steer-1", targetId: 0, created: true, into: first.runId });
      // Idempotent by task id.
      expect(await host.control({ type: "steer", prompt: "also check b", taskId: "steer-1" })).toMatchObject({ created: false });
      writeFileSync(path.join(dir, "slow_step.release"), "");
      expect((await host.waitForTask(first.taskId)).status).toBe("completed");
      expect(model.calls).toHaveLength(2);
      const roles = model.calls[1]!.messages.map((message) => (message.role === "user" ? `user:${typeof message.content === "string" ? message.content : ""}` : message.role));
      expect(roles).toEqual(["user:start", "assistant", "toolResult", "user:also check b"]);
      const tasks = await host.tasks();
      expect(tasks.find((task) => task.taskId === "steer-1")).toMatchObject({ status: "completed", detail: { steeredInto: first.runId } });
      // A steer with nothing running is a turn of its own.
      const idle = await host.control({ type: "steer", prompt: "and now this" });
      expect(idle).toMatchObject({ type: "steer", into: null });
      expect((await host.waitForTask((idle as { taskId: string }).taskId)).status).toBe("completed");
      expect(model.calls).toHaveLength(3);
      expect(model.calls[2]!.messages.filter((message) => message.role === "user")).toHaveLength(3);
    } finally {
      await host.close();
    }
  });
});
