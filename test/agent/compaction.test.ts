import { describe, expect, it } from "@jest/globals";
import { createMemorySessionStore } from "../../src/adapters/driven/memory/memory-session-store.js";
import { COMPACTION_PROMPT } from "../../src/app/agent/compaction-step.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { harness, onStore, kinds, runNode } from "./helpers.js";

function scripted(script: OfflineStep[]) {
  let served = 0;
  const model = createOfflineModel({
    contextWindow: 2000,
    steps: (request: ModelRequest) =>
      request.systemPrompt === COMPACTION_PROMPT ? { text: "User wants the folder listed; ls was run.", usage: { input: 1880, output: 10 } } : script[served++] ?? { text: "(end)" },
  });
  return model;
}

describe("SES-7 automatic compaction", () => {
  it("SES-7 compacts before a model request at 90% of the window, as an event plus a snapshot; replay and later runs use it", async () => {
    const h = harness();
    const store = createMemorySessionStore();
    const model = scripted([
      { text: "Listing.", toolCalls: [{ name: "ls", arguments: {} }], usage: { input: 1850, output: 20 } },
      { text: "The folder is empty.", usage: { input: 40, output: 6 } },
      { text: "Second run answer.", usage: { input: 50, output: 5 } },
    ]);
    const node = createAgentNode(onStore({ models: model, workdir: h.workdir, sessionStore: store }));
    const first = await runNode(node, { prompt: "What is in the folder?" }, h.context("run-compact"));
    expect(first.error).toBeUndefined();
    expect(kinds(first.items).slice(2)).toEqual(["agent-part:text", "agent-part:tool", "agent-part:compaction", "agent-part:text"]);
    expect(model.calls.map((request) => request.systemPrompt === COMPACTION_PROMPT)).toEqual([false, true, false]);
    // The request after the compaction starts from the summary.
    expect(model.calls[2]!.messages[0]).toMatchObject({ role: "user", content: expect.stringContaining("ls was run") });
    expect(model.calls[2]!.messages).toHaveLength(1);
    const compaction = first.items.find((item) => item.metadata.partType === "compaction")!;
    // Occupancy before: the last usage (1850 + 20) plus the estimate of the tool result after it.
    expect(compaction.content).toMatchObject({ summary: "User wants the folder listed; ls was run.", usedBefore: 1875 });
    expect((compaction.content as { usedAfter: number }).usedAfter).toBeLessThan(1000);
    const head = await store.head();
    expect(head.snapshot?.state).toMatchObject({ messages: [{ role: "user" }] });
    // Usage of the summary request is counted once, like any response.
    expect(await h.context("x").tokenUsage.total()).toMatchObject({ input: 1850 + 1880 + 40, output: 20 + 10 + 6 });

    const replay = await runNode(node, { prompt: "What is in the folder?" }, h.context("run-compact"));
    expect(replay.items).toEqual(first.items);
    expect(model.calls).toHaveLength(3);

    const next = await runNode(node, { prompt: "And now?" }, h.context("run-after"));
    expect(next.error).toBeUndefined();
    expect(model.calls[3]!.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(model.calls[3]!.messages[0]).toMatchObject({ content: expect.stringContaining("Summary of the conversation") });
  });

  it("SES-7 compaction is configurable and can be turned off", async () => {
    const h = harness();
    const steps = [{ text: "a", toolCalls: [{ name: "ls", arguments: {} }], usage: { input: 1850, output: 20 } }, { text: "b" }];
    const off = scripted(steps);
    await runNode(createAgentNode({ models: off, workdir: h.workdir, compaction: false }), { prompt: "p" }, h.context("run-off"));
    expect(off.calls.some((request) => request.systemPrompt === COMPACTION_PROMPT)).toBe(false);
    const high = scripted(steps);
    await runNode(createAgentNode({ models: high, workdir: h.workdir, compaction: { threshold: 0.99 }, sessionKey: "high" }), { prompt: "p" }, h.context("run-high"));
    expect(high.calls.some((request) => request.systemPrompt === COMPACTION_PROMPT)).toBe(false);
  });

  it("SES-11 when the model cannot write the summary the run goes on from the mechanical fold, and the compaction row says so", async () => {
    const h = harness();
    const store = createMemorySessionStore();
    const script: OfflineStep[] = [
      { text: "Listing.", toolCalls: [{ name: "ls", arguments: {} }], usage: { input: 1850, output: 20 } },
      { text: "The folder is empty.", usage: { input: 40, output: 6 } },
    ];
    let served = 0;
    const model = createOfflineModel({
      contextWindow: 2000,
      steps: (request: ModelRequest) =>
        request.systemPrompt === COMPACTION_PROMPT ? { error: { message: "summary refused", kind: "recovery", status: 500, retryable: false } } : script[served++] ?? { text: "(end)" },
    });
    const node = createAgentNode(onStore({ models: model, workdir: h.workdir, sessionStore: store, retryDelayMs: 0 }));
    const run = await runNode(node, { prompt: "What is in the folder?" }, h.context("run-fallback"));
    expect(run.error).toBeUndefined();
    const row = run.items.find((item) => item.metadata.partType === "compaction")!;
    expect(row.content).toMatchObject({ source: "fallback", reason: "summary refused" });
    expect((row.content as { summary: string }).summary).toContain("- user: What is in the folder?");
    expect(model.calls[2]!.messages[0]).toMatchObject({ role: "user", content: expect.stringContaining("Summary of the earlier conversation (compacted; ") });
    expect((await store.readAfter(0, { types: ["compaction"] }))[0]!.payload).toMatchObject({ source: "fallback", reason: "summary refused" });
  });
});
