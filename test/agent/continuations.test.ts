import { afterEach, describe, expect, it } from "@jest/globals";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { conversationBody } from "../../src/domain/agent/output-projector.js";
import type { OutputItem } from "../../src/domain/output-items.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import type { OfflineStep } from "../../src/testing/offline-model.js";
import { startAnthropicMessagesServer } from "../fixtures/loopback-anthropic-messages.js";
import { startOpenAIResponsesServer } from "../fixtures/loopback-openai-responses.js";
import type { LoopbackServer } from "../fixtures/loopback-server.js";
import { harness, kinds, offlineNode, ofKind, runNode } from "./helpers.js";

const visible = (items: OutputItem[]) => items.filter((item) => item.metadata.kind !== "agent-session" && item.display?.type !== "ring");
const lastUser = (request: ModelRequest) => {
  const last = request.messages.at(-1);
  return last?.role === "user" && typeof last.content === "string" ? last.content : "";
};
const continuing = (request: ModelRequest) => /cut off/.test(lastUser(request));

describe("OUT-7 length and lost-call continuations", () => {
  it("OUT-7 an answer cut at the output limit is continued silently and joined into the same text part; replay and history agree", async () => {
    const h = harness();
    const { node, model } = offlineNode(((request: ModelRequest): OfflineStep => (continuing(request) ? { text: "ld! All done." } : lastUser(request) === "Next?" ? { text: "Next." } : { text: "Hello wor", stop: "length" })) as never, { h, permissionPolicy: "read-only" });
    const context = () => h.context("run-length", { conversationId: "c" });
    const live = await runNode(node, { prompt: "Greet" }, context());
    expect(live.error).toBeUndefined();
    expect(kinds(visible(live.items))).toEqual(["agent-part:text", "agent-part:retry"]);
    expect(ofKind(live.items, "agent-part", "text").map((item) => item.content)).toEqual(["Hello world! All done."]);
    const retry = ofKind(live.items, "agent-part", "retry")[0]!;
    expect(retry.content).toMatchObject({ kind: "length" });
    expect(retry.metadata.silent).toBe(true);
    expect(retry.display).toEqual({ type: "hidden" });
    expect(conversationBody(live.items)).toBe("Hello world! All done.");
    // The continuation request carries the cut text and asks for the rest.
    const second = model.calls[1]!;
    expect(second.messages.at(-2)).toEqual({ role: "assistant", content: [{ type: "text", text: "Hello wor" }] });
    expect(continuing(second)).toBe(true);

    const replay = await runNode(node, { prompt: "Greet" }, context());
    expect(model.calls).toHaveLength(2);
    expect(visible(replay.items)).toEqual(visible(live.items));

    // The next turn sees one joined answer and no continuation prompt.
    await runNode(node, { prompt: "Next?" }, h.context("run-next", { conversationId: "c" }));
    const history = model.calls[2]!.messages;
    expect(history.filter((message) => message.role === "assistant")).toEqual([
      { role: "assistant", content: [{ type: "text", text: "Hello world! All done." }], provider: "offline", model: "offline-scripted" },
    ]);
    expect(history.some((message) => message.role === "user" && /cut off/.test(String(message.content)))).toBe(false);
  });

  it("OUT-7 a tool call cut by the output limit is a silent lost-call: its row fails, the call is asked again after the text before it", async () => {
    const h = harness();
    const steps = (request: ModelRequest): OfflineStep => {
      if (request.messages.at(-1)?.role === "toolResult") return { text: "The folder is empty." };
      if (continuing(request)) return { toolCalls: [{ id: "call_ok", name: "ls", arguments: { path: "." } }] };
      return { text: "Let me list.", toolCalls: [{ id: "call_cut", name: "ls", arguments: { pa: "" } }], stop: "length" };
    };
    const { node, model } = offlineNode(steps as never, { h, permissionPolicy: "read-only" });
    const live = await runNode(node, { prompt: "What is here?" }, h.context("run-lost"));
    expect(live.error).toBeUndefined();
    expect(kinds(visible(live.items))).toEqual(["agent-part:text", "agent-part:tool", "agent-part:retry", "agent-part:tool", "agent-part:text"]);
    const [cut, ok] = ofKind(live.items, "agent-part", "tool");
    expect(cut!.content).toMatchObject({ toolCallId: "call_cut", status: "failed" });
    expect(ok!.content).toMatchObject({ toolCallId: "call_ok", status: "completed" });
    expect(ofKind(live.items, "agent-part", "retry")[0]!.content).toMatchObject({ kind: "lost-call" });
    expect(live.output!.toolCallCount).toBe(1);
    // The call is asked again with the text before it; the cut call is never sent back.
    expect(model.calls[1]!.messages.at(-2)).toEqual({ role: "assistant", content: [{ type: "text", text: "Let me list." }] });
    // The history: the sentence and the call that ran, as one message.
    expect(model.calls[2]!.messages.find((message) => message.role === "assistant")).toMatchObject({
      content: [{ type: "text", text: "Let me list." }, { type: "toolCall", id: "call_ok" }],
    });
    const replay = await runNode(node, { prompt: "What is here?" }, h.context("run-lost"));
    expect(visible(replay.items)).toEqual(visible(live.items));
  });

  it("OUT-7 continuations are bounded: past maxContinuations the cut answer stands", async () => {
    const h = harness();
    const { node, model } = offlineNode(((): OfflineStep => ({ text: "more ", stop: "length" })) as never, { h, permissionPolicy: "read-only", maxContinuations: 2 });
    const result = await runNode(node, { prompt: "Go on forever" }, h.context("run-bounded"));
    expect(result.error).toBeUndefined();
    expect(model.calls).toHaveLength(3);
    expect(ofKind(result.items, "agent-part", "text").map((item) => item.content)).toEqual(["more more more "]);
    expect(ofKind(result.items, "agent-part", "retry")).toHaveLength(2);
  });

  it("OUT-7 display rule (OUT-3): only a dropped retry is a visible row; a recovery retry is silent", async () => {
    const h = harness();
    const { node } = offlineNode(
      [{ text: "Answer.", error: { message: "overloaded", kind: "recovery", status: 529 } }],
      { h, permissionPolicy: "read-only" },
    );
    const recovered = await runNode(node, { prompt: "x" }, h.context("run-recovery"));
    const silent = ofKind(recovered.items, "agent-part", "retry")[0]!;
    expect(silent.metadata.silent).toBe(true);
    expect(silent.display).toEqual({ type: "hidden" });
    const other = harness();
    const dropped = offlineNode([{ text: "Answer.", error: { message: "terminated", kind: "dropped" } }], { h: other, permissionPolicy: "read-only" });
    const shown = ofKind((await runNode(dropped.node, { prompt: "x" }, other.context("run-dropped"))).items, "agent-part", "retry")[0]!;
    expect(shown.metadata.silent).toBeUndefined();
    expect(shown.display).toEqual({ type: "markdown", collapsed: true });
  });
});

const servers: LoopbackServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

describe.each([
  { apiKind: "openai-responses" as const, start: startOpenAIResponsesServer },
  { apiKind: "anthropic-messages" as const, start: startAnthropicMessagesServer },
])("OUT-7 a real $apiKind stop at the output limit", ({ apiKind, start }) => {
  it("OUT-7 the provider's max-tokens stop is a length continuation joined into one answer", async () => {
    const server = await start({ apiKey: "sk-l", replies: [{ text: "The answer is forty", maxTokens: true, usage: { input: 10, output: 5 } }, { text: "-two.", usage: { input: 20, output: 2 } }] });
    servers.push(server);
    const h = harness();
    const node = createAgentNode({ workdir: h.workdir, permissionPolicy: "read-only", provider: "p", model: "m", apiKind, baseUrl: server.baseUrl, apiKey: "sk-l" });
    const result = await runNode(node, { prompt: "Answer?" }, h.context("run-wire-length"));
    expect(result.error).toBeUndefined();
    expect(server.requests).toHaveLength(2);
    expect(ofKind(result.items, "agent-part", "text").map((item) => item.content)).toEqual(["The answer is forty-two."]);
    expect(ofKind(result.items, "agent-part", "retry")[0]!.content).toMatchObject({ kind: "length" });
    expect(JSON.stringify(server.requests[1]!.body)).toContain("The answer is forty");
    // The usage of the cut response counts too (OpenAI reports it on response.incomplete).
    expect(await h.context("u").tokenUsage.total()).toMatchObject({ input: 30, output: 7 });
  });
});
