import { afterEach, describe, expect, it } from "@jest/globals";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createProviderModel } from "../../src/adapters/driven/providers/provider-model.js";
import type { OutputItem } from "../../src/domain/output-items.js";
import { startAnthropicMessagesServer } from "../fixtures/loopback-anthropic-messages.js";
import { startOpenAIResponsesServer } from "../fixtures/loopback-openai-responses.js";
import type { LoopbackServer, ScriptedReply } from "../fixtures/loopback-server.js";
import { harness, kinds, ofKind, runNode } from "./helpers.js";

const KEY = "sk-loopback";

// A recorded-style search turn: a sentence, two searches, the answer, a passage citing a page
// no search listed; then a plain second turn.
const searchTurn: ScriptedReply = {
  searchPreface: "Let me look that up.",
  webSearches: [
    { query: "steamharness release", sources: [{ url: "https://example.com/release", title: "Release notes" }, { url: "https://example.com/blog", title: "Blog" }] },
    { query: "steamharness changelog", sources: [{ url: "https://example.com/changelog", title: "Changelog" }] },
  ],
  text: "The latest release is 1.2.",
  citations: [{ text: " It added sessions.", url: "https://news.example.org/sessions", title: "Sessions news" }],
  usage: { input: 120, output: 30 },
};

const servers: LoopbackServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

const wires = [
  { apiKind: "openai-responses" as const, start: startOpenAIResponsesServer, toolOf: (body: any) => body.tools?.find((tool: any) => tool.type === "web_search") },
  { apiKind: "anthropic-messages" as const, start: startAnthropicMessagesServer, toolOf: (body: any) => body.tools?.find((tool: any) => tool.type === "web_search_20250305") },
];

const visible = (items: OutputItem[]) => items.filter((item) => item.metadata.kind !== "agent-session" && item.display?.type !== "ring");

describe.each(wires)("OUT-6 native web search over $apiKind", ({ apiKind, start, toolOf }) => {
  it("OUT-6 a configured entry with webSearch sends the native tool; search rows and source notices come from the stream, in order, and replay the same", async () => {
    const server = await start({ apiKey: KEY, replies: [searchTurn, { text: "Yes.", usage: { input: 200, output: 2 } }] });
    servers.push(server);
    const h = harness();
    const node = createAgentNode({
      workdir: h.workdir,
      permissionPolicy: "read-only",
      configuration: { values: { STEAMHARNESS_AGENT_MODELS: [{ id: "m", source: "third-party", provider: "p", model: "m", apiKind, baseUrl: server.baseUrl, apiKey: KEY, webSearch: true }] } },
    });
    const context = () => h.context("run-search", { conversationId: "c1" });
    const first = await runNode(node, { prompt: "What is new?" }, context());
    expect(first.error).toBeUndefined();
    expect(toolOf(server.requests[0]!.body)).toBeDefined();
    // The marker of the wire tap never leaves the process.
    expect(Object.keys(server.requests[0]!.headers).some((name) => name.includes("steamharness"))).toBe(false);

    expect(kinds(visible(first.items))).toEqual([
      "agent-part:text",
      "agent-part:tool",
      "agent-notice",
      "agent-part:tool",
      "agent-notice",
      "agent-part:text",
      "agent-notice",
    ]);
    const rows = ofKind(first.items, "agent-part", "tool");
    expect(rows.map((row) => row.metadata.tool)).toEqual(["web_search", "web_search"]);
    expect(rows.map((row) => (row.content as { arguments: unknown }).arguments)).toEqual([{ query: "steamharness release" }, { query: "steamharness changelog" }]);
    expect(rows.every((row) => (row.content as { status: string }).status === "completed")).toBe(true);
    const notices = ofKind(first.items, "agent-notice").map((item) => item.content as string);
    expect(notices[0]).toContain("(https://example.com/release)");
    expect(notices[0]).toContain("(https://example.com/blog)");
    expect(notices[1]).toContain("(https://example.com/changelog)");
    // Only the page no search listed is added by the citations.
    expect(notices[2]).toBe("Sources:\n- [Sessions news](https://news.example.org/sessions)");
    // One answer part, the cited passage joined to it (Anthropic sends it as its own block).
    expect(ofKind(first.items, "agent-part", "text").map((item) => item.content)).toEqual(["Let me look that up.", "The latest release is 1.2. It added sessions."]);
    expect(first.output!.toolCallCount).toBe(2);

    // Re-running the run id rebuilds the same items from the session (SES-3), searches included.
    const replay = await runNode(node, { prompt: "What is new?" }, context());
    expect(server.requests).toHaveLength(1);
    expect(visible(replay.items)).toEqual(visible(first.items));
    expect(replay.output!.toolCallCount).toBe(2);

    // The next turn sends the answer back as history (searches are not replayed as content).
    const second = await runNode(node, { prompt: "Sure?" }, h.context("run-2", { conversationId: "c1" }));
    expect(second.error).toBeUndefined();
    expect(JSON.stringify(server.requests[1]!.body)).toContain("The latest release is 1.2. It added sessions.");
  });

  it("OUT-6 webSearch: false per turn (and on the node) sends no search tool; modelAttributes.webSearch turns it on for an explicit endpoint", async () => {
    const server = await start({ apiKey: KEY, replies: [{ text: "a" }, { text: "b" }, { text: "c" }] });
    servers.push(server);
    const h = harness();
    const options = { workdir: h.workdir, permissionPolicy: "read-only" as const, provider: "p", model: "m", apiKind, baseUrl: server.baseUrl, apiKey: KEY, modelAttributes: { webSearch: true } };
    const node = createAgentNode(options);
    expect((await runNode(node, { prompt: "one" }, h.context("w1"))).error).toBeUndefined();
    expect((await runNode(node, { prompt: "two", webSearch: false }, h.context("w2"))).error).toBeUndefined();
    const off = createAgentNode({ ...options, webSearch: false });
    expect((await runNode(off, { prompt: "three" }, h.context("w3"))).error).toBeUndefined();
    expect(server.requests.map((request) => toolOf(request.body) !== undefined)).toEqual([true, false, false]);
  });
});

describe("OUT-6 web search support of the provider adapter", () => {
  it("OUT-6 createProviderModel reports webSearch only when asked and never for Chat Completions", () => {
    const base = { baseUrl: "http://127.0.0.1:1/v1", apiKey: KEY, model: "m" };
    expect(createProviderModel({ ...base, apiKind: "openai-responses" }).descriptor.webSearch).toBe(false);
    expect(createProviderModel({ ...base, apiKind: "openai-responses", webSearch: true }).descriptor.webSearch).toBe(true);
    expect(createProviderModel({ ...base, apiKind: "anthropic-messages", webSearch: true }).descriptor.webSearch).toBe(true);
    expect(createProviderModel({ ...base, apiKind: "openai-completions", webSearch: true }).descriptor.webSearch).toBe(false);
  });
});
