import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { COMPACTION_PROMPT } from "../../src/app/agent/compaction-step.js";
import { controlAgentSession, createAgentSessionHost } from "../../src/agent.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { collect, conversation, gateTool, tempDir, waitForFile } from "./helpers.js";

const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((block) => (block as { text?: string }).text ?? "").join("") : "";

type Snapshot = { contexts: Array<{ targetId: number; usage: { used: number }; outputs: Array<{ content: { value: number } }> }> };

describe("SES-11 compact through controlAgentSession", () => {
  it("SES-11 compact waits for the running task, then the session's model writes the summary; the ring recalibrates and the log is kept", async () => {
    const dir = tempDir();
    const conv = conversation("compact");
    const gate = gateTool(dir);
    const model = createOfflineModel({
      steps: (request: ModelRequest): OfflineStep => {
        if (request.systemPrompt === COMPACTION_PROMPT) return { text: `Model summary of: ${request.messages.slice(0, -1).map((message) => textOf(message.content).slice(0, 24)).join(" | ")}` };
        const last = request.messages.at(-1)!;
        if (last.role === "toolResult") return { text: `Slow job finished. ${"detail ".repeat(300)}` };
        return { text: "Starting the slow job.", toolCalls: [{ name: "slow_step", arguments: { step: "1" } }] };
      },
    });
    const host = await createAgentSessionHost(conv, { projectId: "p1", agentStoreDir: dir, models: model, workdir: dir, toolCatalog: [{ id: "slow_step", autoApprove: true }], createTools: () => [gate] });
    try {
      const out = collect();
      host.subscribe(out.listener);
      const { taskId } = (await controlAgentSession(conv, { type: "submit", prompt: "run the slow job" })) as { taskId: string };
      await waitForFile(path.join(dir, "slow_step.started"));

      let settled = false;
      const compacting = controlAgentSession(conv, { type: "compact", keepLast: 0, instructions: "say whether the job finished" }, { agentStoreDir: dir }).finally(() => (settled = true));
      // The task is still running (its tool waits on the gate): the compaction has not asked the model.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(settled).toBe(false);
      expect(model.calls.some((request) => request.systemPrompt === COMPACTION_PROMPT)).toBe(false);
      writeFileSync(path.join(dir, "slow_step.release"), "");

      const result = await compacting;
      expect((await host.waitForTask(taskId)).status).toBe("completed");
      // It ran after the task: the transcript it summarised ends with the task's final answer.
      const request = model.calls.at(-1)!;
      expect(request.systemPrompt).toBe(COMPACTION_PROMPT);
      expect(textOf(request.messages.at(-2)!.content)).toContain("Slow job finished.");
      expect(textOf(request.messages.at(-1)!.content)).toContain("Instructions for this summary: say whether the job finished");
      expect(result).toMatchObject({ type: "compact", targetId: 0, compacted: true, source: "model" });
      const summary = (result as unknown as { summary: string }).summary;
      expect(summary).toMatch(/^Model summary of: run the slow job \| Starting the slow job\. \| step 1 done \| Slow job finished\./);

      // The ring: the snapshot's context usage is the new, smaller transcript's.
      const after = (await host.snapshot()).content as unknown as Snapshot;
      expect(after.contexts[0]!.usage.used).toBe((result as unknown as { usage: { used: number } }).usage.used);
      expect(after.contexts[0]!.outputs[0]!.content.value).toBe(after.contexts[0]!.usage.used);
      const row = out.items().find((item) => item.metadata.partType === "compaction")!;
      expect(row.content).toMatchObject({ source: "model", summary, usedAfter: after.contexts[0]!.usage.used });
      expect(after.contexts[0]!.usage.used).toBeLessThan((row.content as { usedBefore: number }).usedBefore / 4);

      // The next task starts from the model's summary; the earlier events are still in the log.
      const next = (await host.control({ type: "submit", prompt: "and now?" })) as { taskId: string };
      await host.waitForTask(next.taskId);
      const nextRequest = model.calls.filter((call) => call.systemPrompt !== COMPACTION_PROMPT).at(-1)!;
      expect(textOf(nextRequest.messages[0]!.content)).toContain(summary);
      expect(JSON.stringify(nextRequest.messages)).not.toContain("detail detail");
    } finally {
      await host.close();
    }
    const { createSqliteStorage } = await import("../../src/adapters/driven/sqlite/store/sqlite-storage.js");
    const storage = createSqliteStorage({ directory: path.join(dir, "data"), agentStoreDir: dir });
    try {
      const store = (await storage.sessions!.openUnleased({ address: { projectId: "p1", conversationId: conv, sessionKey: "agent" }, create: false }))!;
      const events = await store.readAfter(0);
      expect(events.filter((event) => event.type === "user_message").map((event) => textOf(event.payload.message.content))).toEqual(["run the slow job", "and now?"]);
      expect(events.some((event) => event.type === "tool_result")).toBe(true);
      expect(events.find((event) => event.type === "compaction")).toMatchObject({ payload: { source: "model", manual: true, instructions: "say whether the job finished" } });
      await store.close();
    } finally {
      await storage.close();
    }
  }, 60_000);
});
