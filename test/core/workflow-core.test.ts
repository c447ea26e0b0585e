import { createNodeContext } from "../../src/compose/node-context.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { runStreamNode, type BaseStreamNode } from "../../src/domain/stream-node.js";
import { createOutputItemChunk, createOutputStreamAccumulator, outputChunk } from "../../src/domain/output-stream.js";
import type { OutputItem, OutputItemStreamChunk } from "../../src/domain/output-items.js";
import type { NodeContext } from "../../src/domain/node-context.js";
import { createToolApprovalGate } from "../../src/domain/approval-gate.js";

describe("workflow core (WF-0)", () => {
  it("WF-0 createNodeContext fills every default but storage and projectId", async () => {
    const storage = new MemoryStorage();
    const context = createNodeContext({ projectId: "p1", storage });
    expect(context.runId).toMatch(/^run-/);
    expect(context.toolCatalog).toEqual([]);
    expect(context.signal.aborted).toBe(false);
    expect(typeof context.clock.now()).toBe("number");
    expect(await context.tokenUsage.total()).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });
    // The default approval adapter never auto-approves: a declared tool pauses the run.
    const gate = createToolApprovalGate();
    const withTool = createNodeContext({ projectId: "p1", storage, toolCatalog: [{ id: "t" }] });
    await expect(gate.approve({ name: "t", arguments: {} }, withTool)).rejects.toMatchObject({ code: "user_input_required" });
  });

  it("ARCH-10 one name for the host's tool catalog: toolCatalog; the former aliases (tools, executor.tools) are gone", async () => {
    const storage = new MemoryStorage();
    const gate = createToolApprovalGate();
    const declared = createNodeContext({ projectId: "p1", storage, toolCatalog: [{ id: "t", autoApprove: true }] });
    expect(declared.toolCatalog).toEqual([{ id: "t", autoApprove: true }]);
    expect("executor" in declared).toBe(false);
    await expect(gate.approve({ name: "t", arguments: {} }, declared)).resolves.toBeUndefined();
    // The removed option no longer declares anything: a caller still passing it finds its tool unregistered.
    const old = createNodeContext({ projectId: "p1", storage, tools: [{ id: "t", autoApprove: true }] } as Parameters<typeof createNodeContext>[0]);
    expect(old.toolCatalog).toEqual([]);
    await expect(gate.approve({ name: "t", arguments: {} }, old)).rejects.toMatchObject({ code: "tool_not_registered" });
  });

  it("WF-0 createNodeContext refuses a missing projectId or storage", () => {
    expect(() => createNodeContext({ projectId: "", storage: new MemoryStorage() })).toThrow(/projectId is required/);
    expect(() => createNodeContext({ projectId: "p", storage: undefined as never })).toThrow(/storage is required/);
  });

  it("WF-0 token usage of a conversation context lives in the conversation scope", async () => {
    const storage = new MemoryStorage();
    const context = createNodeContext({ projectId: "p1", conversationId: "c1", storage });
    await context.tokenUsage.record({ entryId: "e1", runId: context.runId, provider: "x", model: "y", at: 0, input: 1, output: 1, cacheRead: 0, cacheWrite: 0, total: 2 });
    expect(await storage.kv.get({ projectId: "p1", conversationId: "c1" }, "tokenUsage.total")).not.toBeNull();
    expect(await storage.kv.get({ projectId: "p1" }, "tokenUsage.total")).toBeNull();
  });

  it("WF-0 runStreamNode collects chunks, reports them live and finalizes with the accumulator", async () => {
    const node: BaseStreamNode<{ words: string[] }, OutputItemStreamChunk, OutputItem[], NodeContext> = {
      name: "echo",
      async *stream(input) {
        yield createOutputItemChunk({ id: "a", content: "", metadata: { kind: "agent-answer" } });
        for (const word of input.words) yield outputChunk.delta("a", word);
        yield outputChunk.done("a");
      },
      finalize(chunks) {
        const acc = createOutputStreamAccumulator();
        acc.pushAll(chunks);
        return acc.items();
      },
    };
    const live: OutputItemStreamChunk[] = [];
    const context = createNodeContext({ projectId: "p", storage: new MemoryStorage() });
    const { output, chunks } = await runStreamNode(node, { words: ["a", "b"] }, context, { onChunk: (c) => live.push(c) });
    expect(output).toEqual([{ id: "a", content: "ab", metadata: { kind: "agent-answer" }, done: true }]);
    expect(chunks).toEqual(live);
    expect(chunks).toHaveLength(4);
  });

  it("WF-0 runStreamNode attaches the chunks gathered so far to a stream error", async () => {
    const node: BaseStreamNode<null, string, string, null> = {
      name: "fails",
      async *stream() {
        yield "first";
        throw new Error("boom");
      },
      finalize: () => "never",
    };
    const error = await runStreamNode(node, null, null).catch((e) => e);
    expect(error.message).toBe("boom");
    expect(error.chunks).toEqual(["first"]);
  });
});
