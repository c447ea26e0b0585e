import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { agentAnswerItemId, agentRingItemId } from "../../src/domain/agent/ids.js";
import type { ModelProvider, ModelStreamEvent } from "../../src/ports/model-provider.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { conversationBody } from "../../src/domain/agent/output-projector.js";
import { harness, kinds, offlineNode, ofKind, runNode } from "./helpers.js";

const bodyOf = (items: { metadata: { kind?: string; partType?: string; plan?: boolean }; content: unknown }[]) =>
  items.filter((item) => (item.metadata.kind === "agent-part" && item.metadata.partType === "text") || item.metadata.plan === true).map((item) => item.content).join("");

describe("output protocol", () => {
  it("OUT-2 text spoken before a tool call stands above it; the body is the text rows in order", async () => {
    const h = harness();
    const { node } = offlineNode(
      [
        { text: "First I list the files.", toolCalls: [{ name: "ls", arguments: {} }] },
        { text: "Then I search.", toolCalls: [{ name: "find", arguments: { pattern: "*.md" } }] },
        { text: "Nothing found." },
      ],
      { h },
    );
    const { items, error } = await runNode(node, { prompt: "go" }, h.context("run-out2"));
    expect(error).toBeUndefined();
    const rows = items.filter((item) => item.metadata.kind === "agent-part");
    expect(rows.map((item) => `${item.metadata.partType}:${item.metadata.partType === "text" ? item.content : item.metadata.tool}`)).toEqual([
      "text:First I list the files.",
      "tool:ls",
      "text:Then I search.",
      "tool:find",
      "text:Nothing found.",
    ]);
    expect(bodyOf(items)).toBe("First I list the files.Then I search.Nothing found.");
    expect(conversationBody(items)).toBe("First I list the files.\n\nThen I search.\n\nNothing found.");
  });

  it("OUT-2 response metadata (finishReason, usage) never lands in the body", async () => {
    const h = harness();
    const { node } = offlineNode([{ text: "Plain answer.", usage: { input: 1234, output: 56 } }], { h });
    const { items } = await runNode(node, { prompt: "hi" }, h.context("run-meta"));
    const texts = ofKind(items, "agent-part", "text");
    expect(texts.map((item) => item.content)).toEqual(["Plain answer."]);
    for (const item of items.filter((i) => typeof i.content === "string")) {
      expect(item.content).not.toMatch(/stop|finishReason|1234/);
    }
  });

  it("OUT-1 agent-session is never body; parts carry kind and partType; no agent-answer in conversation runs", async () => {
    const h = harness();
    const { node } = offlineNode([{ reasoning: "thinking", text: "Answer." }], { h });
    const { items } = await runNode(node, { prompt: "hi" }, h.context("run-out1"));
    expect(kinds(items)).toEqual(["agent-session", "ring", "agent-part:reasoning", "agent-part:text"]);
    expect(ofKind(items, "agent-answer")).toHaveLength(0);
    expect(items[0]!.metadata).toMatchObject({ kind: "agent-session", version: 1 });
  });

  it("OUT-1 host-driven runs put the whole turn's text in the declared agent-answer item", async () => {
    const h = harness();
    const { node } = offlineNode(
      [{ text: "Looking.", toolCalls: [{ name: "ls", arguments: {} }] }, { text: "Done." }],
      { h, outputItemId: "answer-1" },
    );
    const { items } = await runNode(node, { prompt: "hi", hostInput: { channel: "gateway" } }, h.context("run-host"));
    const answers = ofKind(items, "agent-answer");
    expect(answers.map((item) => item.id)).toEqual(["answer-1"]);
    expect(answers[0]!.content).toBe("Looking.\n\nDone.");
    expect(ofKind(items, "agent-part", "text")).toHaveLength(0);
    expect(ofKind(items, "agent-part", "tool")).toHaveLength(1);
  });

  it("OUT-2 GW-3 a declared outputItemId alone does not make a run host-driven: ordinary runs keep text where it was spoken", async () => {
    const h = harness();
    const { node } = offlineNode(
      [{ text: "Looking.", toolCalls: [{ name: "ls", arguments: {} }] }, { text: "Done." }],
      { h, outputItemId: "answer-1" },
    );
    const { items, error } = await runNode(node, { prompt: "hi" }, h.context("run-ordinary"));
    expect(error).toBeUndefined();
    expect(ofKind(items, "agent-answer")).toHaveLength(0);
    expect(kinds(items).slice(2)).toEqual(["agent-part:text", "agent-part:tool", "agent-part:text"]);
    expect(conversationBody(items)).toBe("Looking.\n\nDone.");
  });

  it("SES-6 GW-3 hostInput reaches the model before the prompt and is never recorded in the session history", async () => {
    const h = harness();
    const { node, model } = offlineNode([{ text: "First." }, { text: "Second." }], { h, outputItemId: "answer" });
    const context = (runId: string) => h.context(runId, { conversationId: "conv-host" });
    await runNode(node, { prompt: "question one", hostInput: { instructions: "secret-instructions-7" } }, context("run-h1"));
    const sent = JSON.stringify(model.calls[0]!.messages.at(-1));
    expect(sent).toContain("secret-instructions-7");
    expect(sent.indexOf("secret-instructions-7")).toBeLessThan(sent.indexOf("question one"));
    // The next turn of the same (in-memory) session sees the first prompt and answer, not its host input.
    await runNode(node, { prompt: "question two", hostInput: "other" }, context("run-h2"));
    const second = model.calls[1]!.messages;
    expect(JSON.stringify(second)).toContain("question one");
    expect(JSON.stringify(second)).toContain("First.");
    expect(JSON.stringify(second)).not.toContain("secret-instructions-7");
  });

  it("OUT-1 a gateway run with hostInput is host-driven: its answer item id derives from the session key", async () => {
    const h = harness();
    const { node } = offlineNode([{ text: "Gateway answer." }], { h, sessionKey: "gateway 网关" });
    const { items } = await runNode(node, { prompt: "hi", hostInput: { question: "hi" } }, h.context("run-gateway"));
    const answers = ofKind(items, "agent-answer");
    expect(answers.map((item) => [item.id, item.content])).toEqual([[agentAnswerItemId("gateway 网关"), "Gateway answer."]]);
    expect(ofKind(items, "agent-part", "text")).toHaveLength(0);
  });

  it("OUT-3 retry rows: numbered Retry n / max, own ids, counter reset after a successful request", async () => {
    const h = harness();
    let call = 0;
    // Request 1 fails twice, succeeds with a tool call; request 2 fails once, then answers.
    const script = [
      { error: { message: "socket hang up", kind: "dropped" as const } },
      { error: { message: "429 Too Many Requests", kind: "recovery" as const, status: 429 } },
      { text: "Listing.", toolCalls: [{ name: "ls", arguments: {} }] },
      { error: { message: "500 Internal Server Error", kind: "recovery" as const, status: 500 } },
      { text: "All done." },
    ];
    const { node, model } = offlineNode((() => script[call++]!) as never, { h, maxRetries: 10 });
    const { items, error } = await runNode(node, { prompt: "go" }, h.context("run-retry"));
    expect(error).toBeUndefined();
    const retries = ofKind(items, "agent-part", "retry");
    expect(retries.map((item) => (item.content as { label: string }).label)).toEqual(["Retry 1 / 10", "Retry 2 / 10", "Retry 1 / 10"]);
    expect(retries.map((item) => (item.content as { kind: string }).kind)).toEqual(["dropped", "recovery", "recovery"]);
    expect((retries[2]!.content as { status: number }).status).toBe(500);
    expect(new Set(retries.map((item) => item.id)).size).toBe(3);
    expect(model.calls).toHaveLength(5);
    // Retry rows sit where they happened: before the text of the request they retried.
    expect(kinds(items).slice(2)).toEqual(["agent-part:retry", "agent-part:retry", "agent-part:text", "agent-part:tool", "agent-part:retry", "agent-part:text"]);
  });

  it("OUT-3 a dropped stream keeps its partial text above the retry row, and replay keeps the order", async () => {
    const h = harness();
    let calls = 0;
    const dropping: ModelProvider = {
      descriptor: { provider: "test", model: "dropping", apiKind: "offline", contextWindow: 1000 },
      async *stream(): AsyncIterable<ModelStreamEvent> {
        calls++;
        if (calls === 1) {
          yield { type: "text_delta", index: 0, delta: "Partial ans" };
          yield { type: "done", response: { content: [], usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, stopReason: "error", errorMessage: "connection reset", retry: { retryable: true, kind: "dropped" } } };
          return;
        }
        yield { type: "text_delta", index: 0, delta: "Full answer." };
        yield { type: "done", response: { content: [{ type: "text", text: "Full answer." }], usage: { input: 10, output: 3, cacheRead: 0, cacheWrite: 0, total: 13 }, stopReason: "stop" } };
      },
    };
    const node = createAgentNode({ models: dropping, workdir: h.workdir, retryDelayMs: 0 });
    const live = await runNode(node, { prompt: "go" }, h.context("run-drop"));
    expect(kinds(live.items).slice(2)).toEqual(["agent-part:text", "agent-part:retry", "agent-part:text"]);
    expect(ofKind(live.items, "agent-part", "text").map((item) => item.content)).toEqual(["Partial ans", "Full answer."]);
    const replay = await runNode(node, { prompt: "go" }, h.context("run-drop"));
    expect(replay.items).toEqual(live.items);
    expect(calls).toBe(2);
  });

  it("OUT-3 a non-retryable failure or exhausted retries end the run with agent-error", async () => {
    const h = harness();
    const failing = Array.from({ length: 5 }, () => ({ error: { message: "503", kind: "recovery" as const, status: 503 } }));
    let call = 0;
    const { node } = offlineNode((() => failing[call++] ?? { text: "late" }) as never, { h, maxRetries: 2 });
    const { items, error } = await runNode(node, { prompt: "go" }, h.context("run-exhaust"));
    expect(error).toMatchObject({ code: "model_error" });
    expect(ofKind(items, "agent-part", "retry").map((item) => (item.content as { label: string }).label)).toEqual(["Retry 1 / 2", "Retry 2 / 2"]);
    expect(ofKind(items, "agent-error")).toHaveLength(1);
  });

  it("OUT-5 web search activity is a web_search tool row, sources a notice with links, counted in toolCallCount", async () => {
    const h = harness();
    let requests = 0;
    const flags: Array<boolean | undefined> = [];
    const searching: ModelProvider = {
      descriptor: { provider: "test", model: "searching", apiKind: "openai-responses", contextWindow: 1000, webSearch: true },
      async *stream(request): AsyncIterable<ModelStreamEvent> {
        requests++;
        flags.push(request.webSearch);
        yield { type: "web_search", status: "started", query: "steamharness" };
        yield { type: "web_search", status: "completed", sources: [{ url: "https://example.com/a", title: "Example A" }] };
        yield { type: "text_delta", index: 0, delta: "Found it." };
        yield { type: "done", response: { content: [{ type: "text", text: "Found it." }], usage: { input: 5, output: 2, cacheRead: 0, cacheWrite: 0, total: 7 }, stopReason: "stop" } };
      },
    };
    const node = createAgentNode({ models: searching, workdir: h.workdir });
    const live = await runNode(node, { prompt: "search" }, h.context("run-search"));
    expect(kinds(live.items).slice(2)).toEqual(["agent-part:tool", "agent-notice", "agent-part:text"]);
    expect(live.items[2]!.metadata.tool).toBe("web_search");
    expect(live.items[3]!.content).toContain("[Example A](https://example.com/a)");
    expect(live.output!.toolCallCount).toBe(1);
    const replay = await runNode(node, { prompt: "search" }, h.context("run-search"));
    expect(replay.items).toEqual(live.items);
    expect(requests).toBe(1);

    const off = createAgentNode({ models: searching, workdir: h.workdir, webSearch: false });
    await runNode(off, { prompt: "search" }, h.context("run-search-off"));
    expect(flags).toEqual([true, false]);
  });

  it("AG-7 the ring is sent before the first model response, updated during the turn, with a stable id per session key", async () => {
    const h = harness();
    const { node, model } = offlineNode(
      [{ text: "Reading.", toolCalls: [{ name: "ls", arguments: {} }] }, { text: "Done.", usage: { input: 900, output: 10, cacheRead: 0, cacheWrite: 0 } }],
      { h, sessionKey: "会话 一", modelAttributes: { contextWindow: 2000 } },
    );
    const ringId = agentRingItemId("会话 一");
    const { chunks, items } = await runNode(node, { prompt: "go" }, h.context("run-ring"));
    expect(model.calls).toHaveLength(2);
    const ringChunks = chunks.filter((chunk) => (chunk.type === "add" ? chunk.item.id : chunk.id) === ringId);
    const firstModelChunk = chunks.findIndex((chunk) => chunk.type === "add" && chunk.item.metadata.kind === "agent-part");
    const firstRing = chunks.findIndex((chunk) => chunk.type === "add" && chunk.item.id === ringId);
    expect(firstRing).toBeGreaterThanOrEqual(0);
    expect(firstRing).toBeLessThan(firstModelChunk);
    expect(ringChunks.length).toBeGreaterThan(3);
    const ring = items.find((item) => item.id === ringId)!;
    expect(ring.display).toEqual({ type: "ring", placement: "composer-right" });
    expect(ring.content).toEqual({ value: 910, total: 2000, unit: "tokens" });
    expect(node.agent.getContextUsage()).toMatchObject({ used: 910, total: 2000, unit: "tokens", source: "usage" });
  });

  it("AG-7 ring ids are stable and distinct for Chinese keys and keys with spaces", () => {
    const keys = ["agent", "Agent", "agent ", " agent", "会话", "会话 一", "会话一", "a b", "a  b", "a\tb", "reviewer", "评审 代理"];
    const ids = keys.map(agentRingItemId);
    expect(new Set(ids).size).toBe(keys.length);
    expect(keys.map(agentRingItemId)).toEqual(ids);
    expect(agentRingItemId("会话 一")).toBe(ids[5]);
  });

  it("AG-7 two agents with different session keys keep separate rings in one conversation", async () => {
    const h = harness();
    const a = offlineNode([{ text: "A." }], { h, sessionKey: "研究 助手" });
    const b = offlineNode([{ text: "B." }], { h, sessionKey: "research helper" });
    const ra = await runNode(a.node, { prompt: "a" }, h.context("run-ring-a"));
    const rb = await runNode(b.node, { prompt: "b" }, h.context("run-ring-b"));
    const ringA = ra.items.find((item) => item.display?.type === "ring")!;
    const ringB = rb.items.find((item) => item.display?.type === "ring")!;
    expect(ringA.id).not.toBe(ringB.id);
    expect(ringA.id).toBe(agentRingItemId("研究 助手"));
  });

  it("AG-1 updateContextUsage replaces the occupancy with a measurement", async () => {
    const h = harness();
    const { node } = offlineNode([{ text: "x" }], { h, modelAttributes: { contextWindow: 5000 } });
    expect(node.agent.updateContextUsage({ used: 1200 })).toMatchObject({ used: 1200, total: 5000, source: "measured" });
    expect(node.agent.getContextUsage().used).toBe(1200);
    expect(() => node.agent.updateContextUsage({ used: -1 })).toThrow(/used/);
  });
});

describe("OUT-9 patch and file rows", () => {
  it("OUT-9 an edit is a patch row carrying the unified diff, a write a file row with its path; replay keeps them", async () => {
    const h = harness();
    writeFileSync(path.join(h.workdir, "notes.md"), "# Notes\nold line\n");
    const { node } = offlineNode(
      [
        { toolCalls: [{ name: "edit", arguments: { path: "notes.md", oldText: "old line", newText: "new line" } }, { name: "write", arguments: { path: "out/summary.md", content: "Summary" } }] },
        { text: "Updated the notes and wrote a summary." },
      ],
      { h, permissionPolicy: "workspace" },
    );
    const live = await runNode(node, { prompt: "Update" }, h.context("run-patch"));
    expect(live.error).toBeUndefined();
    const patch = ofKind(live.items, "agent-part", "patch");
    const file = ofKind(live.items, "agent-part", "file");
    expect(patch).toHaveLength(1);
    expect(file).toHaveLength(1);
    expect(patch[0]!.metadata.tool).toBe("edit");
    expect(patch[0]!.content).toMatchObject({ status: "completed", path: "notes.md", diff: "--- a/notes.md\n+++ b/notes.md\n@@ -1,2 +1,2 @@\n # Notes\n-old line\n+new line\n" });
    expect(file[0]!.content).toMatchObject({ status: "completed", path: path.join("out", "summary.md"), bytes: 7, created: true });
    expect(ofKind(live.items, "agent-part", "tool")).toHaveLength(0);
    const replay = await runNode(node, { prompt: "Update" }, h.context("run-patch"));
    expect(replay.items.filter((item) => item.metadata.kind === "agent-part")).toEqual(live.items.filter((item) => item.metadata.kind === "agent-part"));
  });
});
