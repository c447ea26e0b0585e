// SEC-6: the raw provider events a request needs are read through a client built for that
// request only: nothing global is replaced, no header sent by the host (or anyone) can reach a
// request's observers, and two copies of the library in one process each read their own rows.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "@jest/globals";
import { createProviderModel, type ProviderApiKind } from "../../src/adapters/driven/providers/provider-model.js";
import type { ModelStreamEvent } from "../../src/ports/model-provider.js";
import { startAnthropicMessagesServer } from "../fixtures/loopback-anthropic-messages.js";
import { startOpenAICompletionsServer } from "../fixtures/loopback-openai-completions.js";
import { startOpenAIResponsesServer } from "../fixtures/loopback-openai-responses.js";
import type { LoopbackServer, ScriptedReply, ScriptedResponse } from "../fixtures/loopback-server.js";
import { collect } from "./provider-cases.js";

const run = promisify(execFile);
const KEY = "sk-loopback-sec6";
/** The header the old process-wide tap obeyed; its ids were `tap-1`, `tap-2`, … */
const OLD_MARKER = "x-steamharness-wire-tap";

const servers: LoopbackServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

async function serve(start: (options: { apiKey: string; replies: ScriptedReply[] }) => Promise<LoopbackServer>, replies: ScriptedReply[]): Promise<LoopbackServer> {
  const server = await start({ apiKey: KEY, replies });
  servers.push(server);
  return server;
}

const searchTurn = (query: string, usage = { input: 12, output: 3 }): ScriptedResponse => ({
  webSearches: [{ query, sources: [{ url: `https://example.com/${query.replace(/ /g, "-")}`, title: query }] }],
  text: "The real answer, streamed in small pieces.",
  chunkSize: 3,
  usage,
});

const request = { requestId: "r", messages: [{ role: "user" as const, content: "What is new?" }], tools: [], webSearch: true };
const queries = (events: ModelStreamEvent[]) => events.flatMap((event) => (event.type === "web_search" && event.status === "completed" ? [event.query] : []));

describe("SEC-6 no global fetch patch; forged markers inert", () => {
  it("SEC-6 globalThis.fetch is the identical function before and after OpenAI Responses, Anthropic and Chat Completions runs", async () => {
    const before = globalThis.fetch;
    const kinds: Array<[ProviderApiKind, LoopbackServer]> = [
      ["openai-responses", await serve(startOpenAIResponsesServer, [searchTurn("responses search"), { text: "Cut.", maxTokens: true }])],
      ["anthropic-messages", await serve(startAnthropicMessagesServer, [searchTurn("anthropic search")])],
      ["openai-completions", await serve(startOpenAICompletionsServer, [{ text: "Plain." }])],
    ];
    for (const [apiKind, server] of kinds) {
      const model = createProviderModel({ apiKind, baseUrl: server.baseUrl, apiKey: KEY, model: "m", webSearch: true });
      const { events, response } = await collect(model.stream(request));
      expect(response.stopReason).toBe("stop");
      // The raw events were read (web-search rows), and nothing global changed to read them.
      const expected = { "openai-responses": ["responses search"], "anthropic-messages": ["anthropic search"], "openai-completions": [] };
      expect(queries(events)).toEqual(expected[apiKind]);
      expect(globalThis.fetch).toBe(before);
      if (apiKind === "openai-responses") {
        // OUT-7 still reads `response.incomplete` (which pi-ai ignores), still without the patch.
        const cut = await collect(model.stream({ ...request, webSearch: false }));
        expect(cut.response.stopReason).toBe("length");
        expect(globalThis.fetch).toBe(before);
      }
    }
    // No marker of ours ever left the process.
    for (const [, server] of kinds) expect(Object.keys(server.requests[0]!.headers).some((name) => name.includes("steamharness"))).toBe(false);
  });

  it("SEC-6 a forged x-steamharness-wire-tap request from the host during a running request has no effect on its stop reason, usage or search rows", async () => {
    // The forger's streams: an answer cut at the limit with absurd usage, and a search of its own.
    const forgedReply: ScriptedResponse = { ...searchTurn("forged search", { input: 999_999, output: 888_888 }), maxTokens: true };
    const forgery = {
      "openai-responses": { server: await serve(startOpenAIResponsesServer, Array(60).fill(forgedReply)), path: "/responses", auth: { authorization: `Bearer ${KEY}` } },
      "anthropic-messages": { server: await serve(startAnthropicMessagesServer, Array(60).fill(forgedReply)), path: "/v1/messages", auth: { "x-api-key": KEY } },
    };
    let forged = 0;
    for (const apiKind of ["openai-responses", "anthropic-messages"] as const) {
      // Warm the path once so that a process-wide tap, if any, is installed and counting.
      const start = apiKind === "openai-responses" ? startOpenAIResponsesServer : startAnthropicMessagesServer;
      const server = await serve(start, [searchTurn("warm-up search"), searchTurn("real search")]);
      const model = createProviderModel({ apiKind, baseUrl: server.baseUrl, apiKey: KEY, model: "m", webSearch: true });
      await collect(model.stream(request));
      const events: ModelStreamEvent[] = [];
      let midStream = true;
      for await (const event of model.stream(request)) {
        events.push(event);
        if (event.type !== "text_delta" || !midStream) continue;
        midStream = false;
        // Mid-stream: the host guesses every marker id a tap could have handed out.
        const { server: forger, path, auth } = forgery[apiKind];
        for (let id = 1; id <= 30; id++) {
          const reply = await globalThis.fetch(forger.baseUrl + path, {
            method: "POST",
            headers: { "content-type": "application/json", [OLD_MARKER]: `tap-${id}`, ...auth },
            body: JSON.stringify({ model: "m", stream: true }),
          });
          expect(await reply.text()).toContain("forged search");
          forged++;
        }
      }
      const done = events.at(-1) as Extract<ModelStreamEvent, { type: "done" }>;
      expect(done.response.stopReason).toBe("stop");
      expect(done.response.usage).toEqual({ input: 12, output: 3, cacheRead: 0, cacheWrite: 0, total: 15 });
      expect(queries(events)).toEqual(["real search"]);
      expect(done.response.content.at(-1)).toEqual({ type: "text", text: "The real answer, streamed in small pieces." });
    }
    expect(forged).toBe(60);
  });

  it("SEC-6 two copies of the library in one process (ESM and CommonJS) each get their own web-search rows, 1 and 1", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "test/providers/fixtures/two-copies.ts"], { cwd: process.cwd(), timeout: 60_000 });
    const { distinct, fetchUnchanged, results } = JSON.parse(stdout);
    expect(distinct).toBe(true);
    expect(results).toEqual({
      esm: { "openai-responses": ["esm search"], "anthropic-messages": ["esm search"] },
      cjs: { "openai-responses": ["cjs search"], "anthropic-messages": ["cjs search"] },
    });
    expect(fetchUnchanged).toBe(true);
  });
});
