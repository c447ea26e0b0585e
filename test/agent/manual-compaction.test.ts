import { describe, expect, it } from "@jest/globals";
import { createMemorySessionStore } from "../../src/adapters/driven/memory/memory-session-store.js";
import { COMPACTION_PROMPT } from "../../src/app/agent/compaction-step.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { harness, onStore, runNode } from "./helpers.js";

const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((block) => (block as { text?: string }).text ?? "").join("") : "";
const isCompaction = (request: ModelRequest) => request.systemPrompt === COMPACTION_PROMPT;

/** Answers turns by echoing; a compaction request gets `summary(request)`. */
function scripted(summary: (request: ModelRequest) => OfflineStep, model = "offline-scripted") {
  return createOfflineModel({
    model,
    steps: (request) => (isCompaction(request) ? summary(request) : { text: `${model} heard: ${textOf(request.messages.at(-1)!.content)}` }),
  });
}

describe("SES-11 manual compaction (agent.compact)", () => {
  it("SES-11 the summary is the session model's text; its request carries the documented prompt, the instructions and the transcript; the log is kept", async () => {
    const h = harness();
    const store = createMemorySessionStore();
    const model = scripted(() => ({ text: "The user named a colour (teal) and a city (Oslo)." }));
    const node = createAgentNode(onStore({ models: model, workdir: h.workdir, sessionStore: store, systemPrompt: "Be brief." }));
    for (const [runId, prompt] of [["run-1", "my colour is teal"], ["run-2", "my city is Oslo"]] as const) expect((await runNode(node, { prompt }, h.context(runId))).error).toBeUndefined();
    const before = node.agent.getContextUsage();

    const result = await node.compact({ instructions: "keep the colour and the city" }, h.context("compact-1"));
    expect(result).toMatchObject({ compacted: true, source: "model", summary: "The user named a colour (teal) and a city (Oslo).", folded: 4 });
    const request = model.calls.at(-1)!;
    expect(request.systemPrompt).toBe(COMPACTION_PROMPT);
    // The transcript, then the documented instruction with the budget and the person's instructions.
    expect(request.messages.slice(0, -1).map((message) => textOf(message.content))).toEqual(["my colour is teal", "offline-scripted heard: my colour is teal", "my city is Oslo", "offline-scripted heard: my city is Oslo"]);
    expect(textOf(request.messages.at(-1)!.content)).toBe("Summarise the conversation above as described. Keep the summary under 2000 tokens.\n\nInstructions for this summary: keep the colour and the city");
    expect(request.tools).toEqual([]);

    // The compaction row and the recalibrated ring.
    const row = result.chunks.find((chunk) => chunk.type === "add" && chunk.item.metadata.partType === "compaction");
    expect(row).toMatchObject({ item: { content: { source: "model", summary: result.summary, manual: true } } });
    expect(result.usage.used).toBeLessThan(before.used);
    expect(node.agent.getContextUsage()).toEqual(result.usage);

    // The log is kept: every earlier event is still there; the compaction is an appended event.
    const events = await store.readAfter(0);
    expect(events.filter((event) => event.type === "user_message").map((event) => textOf(event.payload.message.content))).toEqual(["my colour is teal", "my city is Oslo"]);
    const compaction = events.find((event) => event.type === "compaction")!;
    expect(events.slice(-2)).toMatchObject([{ type: "usage", runId: "compact-1" }, { type: "run_finished", runId: "compact-1" }]);
    expect(compaction).toMatchObject({ type: "compaction", runId: "compact-1", payload: { source: "model", summary: result.summary, instructions: "keep the colour and the city", manual: true, folded: 4 } });
    expect((await store.head()).snapshot?.atSeq).toBe(compaction.seq);

    // The next turn starts from the summary, not from the folded messages.
    await runNode(node, { prompt: "where do I live?" }, h.context("run-3"));
    const next = model.calls.at(-1)!;
    expect(next.messages.map((message) => message.role)).toEqual(["user", "user"]);
    expect(textOf(next.messages[0]!.content)).toContain("The user named a colour (teal) and a city (Oslo).");
    expect(JSON.stringify(next.messages)).not.toContain("heard: my colour is teal");

    // Re-sending the compaction's id applies the stored one; the model is not asked again.
    const calls = model.calls.length;
    expect((await node.compact({}, h.context("compact-1"))).summary).toBe(result.summary);
    expect(model.calls).toHaveLength(calls);
  });

  it("SES-11 when the model fails the mechanical fold is used and the compaction row and event say so", async () => {
    const h = harness();
    const store = createMemorySessionStore();
    const model = scripted(() => ({ error: { message: "summariser overloaded", kind: "recovery", status: 503, retryable: false } }));
    const node = createAgentNode(onStore({ models: model, workdir: h.workdir, sessionStore: store, retryDelayMs: 0 }));
    await runNode(node, { prompt: "remember the number 42" }, h.context("run-1"));
    const result = await node.compact({}, h.context("compact-f"));
    expect(result).toMatchObject({ compacted: true, source: "fallback", reason: "summariser overloaded" });
    expect(result.summary).toContain("- user: remember the number 42");
    const row = result.chunks.find((chunk) => chunk.type === "add" && chunk.item.metadata.partType === "compaction");
    expect(row).toMatchObject({ item: { content: { source: "fallback", reason: "summariser overloaded" } } });
    const event = (await store.readAfter(0, { types: ["compaction"] }))[0]!;
    expect(event.payload).toMatchObject({ source: "fallback", reason: "summariser overloaded" });
    expect(model.calls.filter(isCompaction)).toHaveLength(1);
  });

  it("SES-11 the session's own model writes it (the one its latest run used), bounded by compaction.summaryTokens", async () => {
    const h = harness();
    const store = createMemorySessionStore();
    const fast = scripted(() => ({ text: "fast summary" }), "fast");
    const deep = scripted(() => ({ text: `deep summary ${"word ".repeat(200)}` }), "deep");
    const node = createAgentNode(onStore({ models: { fast, deep }, model: "fast", workdir: h.workdir, sessionStore: store, compaction: { summaryTokens: 20 } }));
    await runNode(node, { prompt: "think hard", model: "deep" }, h.context("run-1"));
    const result = await node.compact({}, h.context("compact-m"));
    expect(fast.calls.filter(isCompaction)).toHaveLength(0);
    expect(deep.calls.filter(isCompaction)).toHaveLength(1);
    expect(textOf(deep.calls.at(-1)!.messages.at(-1)!.content)).toContain("Keep the summary under 20 tokens.");
    expect(result.summary.startsWith("deep summary")).toBe(true);
    expect(result.summary.length).toBeLessThanOrEqual(20 * 4);
  });

  it("SES-11 an empty session has nothing to compact and writes nothing", async () => {
    const h = harness();
    const store = createMemorySessionStore();
    const model = scripted(() => ({ text: "never" }));
    const node = createAgentNode(onStore({ models: model, workdir: h.workdir, sessionStore: store }));
    expect(await node.compact({}, h.context("compact-e"))).toMatchObject({ compacted: false, source: null });
    expect((await store.head()).lastSeq).toBe(0);
    expect(model.calls).toHaveLength(0);
  });

  it("SES-11 a node with session: {} compacts through the conversation's host, with the host's row and ring handed back", async () => {
    const h = harness();
    const model = scripted(() => ({ text: "Hosted summary." }));
    const node = createAgentNode({ models: model, workdir: h.workdir, session: {} });
    const conversationId = `compact-host-${process.pid}`;
    try {
      expect((await runNode(node, { prompt: "first question" }, h.context("run-h1", { conversationId }))).error).toBeUndefined();
      const result = await node.compact({ instructions: "short" }, h.context("compact-h", { conversationId }));
      expect(result).toMatchObject({ compacted: true, source: "model", summary: "Hosted summary.", folded: 2 });
      const kinds = result.chunks.flatMap((chunk) => (chunk.type === "add" ? [chunk.item.metadata.partType ?? (chunk.item.display?.type === "ring" ? "ring" : "other")] : []));
      expect(kinds).toEqual(["compaction", "ring"]);
      await runNode(node, { prompt: "second question" }, h.context("run-h2", { conversationId }));
      expect(textOf(model.calls.at(-1)!.messages[0]!.content)).toContain("Hosted summary.");
    } finally {
      await node.close();
    }
  });
});
