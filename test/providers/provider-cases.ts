/**
 * The cases every API kind of createProviderModel must pass against its loopback server. Each
 * `<kind>.test.ts` calls {@link describeProviderKind} with its wire format and the few
 * wire-specific readers of the request body.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { createProviderModel, type ProviderApiKind } from "../../src/adapters/driven/providers/provider-model.js";
import type { ModelMessage, ModelRequest, ModelStreamEvent, ModelToolSpec } from "../../src/ports/model-provider.js";
import { startLoopbackServer, type LoopbackServer, type ScriptedReply, type WireFormat } from "../fixtures/loopback-server.js";

/** Readers of what the adapter sent, in the API's own request shape. */
export interface WireReaders {
  /** The reasoning effort the request asked for, or undefined. */
  effort(body: any): string | undefined;
  /** The names of the tools offered. */
  toolNames(body: any): string[];
  /** The tool call and its result as sent back in a follow-up request. */
  toolRoundTrip(body: any): { callId: string; name: string; arguments: unknown; output: string };
  /** What the follow-up request carries to continue the earlier reasoning (signature, encrypted item or text). */
  replayedReasoning(body: any): string | undefined;
  /**
   * Whether a stream that ends cleanly mid-response is recognisable. False only with a reason
   * given at the call site (the case is then skipped, visibly).
   */
  detectsCleanTruncation: boolean;
}

export const API_KEY = "sk-loopback-explicit";
const ENV_KEY = "sk-from-environment-never-sent";

const LS_TOOL: ModelToolSpec = {
  name: "ls",
  description: "List a directory",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

function request(messages: ModelMessage[] = [{ role: "user", content: "Hello?" }], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { requestId: "run-1:step-1", systemPrompt: "You are terse.", messages, tools: [LS_TOOL], ...extra };
}

/**
 * Collects a stream; asserts it ends with exactly one `done` event.
 *
 * @example
 * const { response, deltas } = await collect(model.stream(request()));
 */
export async function collect(stream: AsyncIterable<ModelStreamEvent>) {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const doneEvents = events.filter((event) => event.type === "done");
  expect(doneEvents).toHaveLength(1);
  expect(events[events.length - 1]?.type).toBe("done");
  const done = doneEvents[0] as Extract<ModelStreamEvent, { type: "done" }>;
  const deltas = (type: "text_delta" | "reasoning_delta" | "toolcall_delta") =>
    events.filter((event): event is Extract<ModelStreamEvent, { type: typeof type }> => event.type === type).map((event) => event.delta);
  return { events, response: done.response, deltas };
}

/**
 * Registers the shared cases of one API kind.
 *
 * @example
 * describeProviderKind("openai-completions", openAICompletionsWire, readers);
 */
export function describeProviderKind(apiKind: ProviderApiKind, wire: WireFormat, readers: WireReaders): void {
  describe(`AG-3 provider ${apiKind} against a loopback server`, () => {
    let server: LoopbackServer | undefined;
    const fetchedUrls: string[] = [];
    const realFetch = globalThis.fetch;
    const envNames = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_ORG_ID"] as const;
    const savedEnv = envNames.map((name) => [name, process.env[name]] as const);

    beforeAll(() => {
      // A pass-through spy: it records where every HTTP request of the SDKs goes.
      globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
        fetchedUrls.push(input instanceof Request ? input.url : String(input));
        return realFetch(input, init);
      }) as typeof fetch;
      // Keys in the environment must never be picked up (checked by the loopback server).
      process.env.OPENAI_API_KEY = ENV_KEY;
      process.env.ANTHROPIC_API_KEY = ENV_KEY;
      process.env.ANTHROPIC_AUTH_TOKEN = ENV_KEY;
      process.env.OPENAI_ORG_ID = "org-from-environment";
    });
    afterEach(async () => {
      // No test calls the internet: every request went to this test's loopback server.
      if (server) {
        const origin = server.origin;
        expect(fetchedUrls.every((url) => url.startsWith(`${origin}/`))).toBe(true);
        expect(fetchedUrls).toHaveLength(server.requests.length);
        await server.close();
      }
      server = undefined;
      fetchedUrls.length = 0;
    });
    afterAll(() => {
      globalThis.fetch = realFetch;
      for (const [name, value] of savedEnv) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    async function start(replies: ScriptedReply[]) {
      server = await startLoopbackServer(wire, { apiKey: API_KEY, replies });
      const model = createProviderModel({ apiKind, baseUrl: server.baseUrl, apiKey: API_KEY, model: "loopback-model", reasoning: true });
      return { server, model };
    }

    it("streams text in pieces and ends with one done event", async () => {
      const { server, model } = await start([{ text: "Hello from the loopback server." }]);
      const { response, deltas } = await collect(model.stream(request()));
      expect(deltas("text_delta").length).toBeGreaterThan(2);
      expect(deltas("text_delta").join("")).toBe("Hello from the loopback server.");
      expect(response.stopReason).toBe("stop");
      expect(response.content).toEqual([{ type: "text", text: "Hello from the loopback server." }]);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]).toMatchObject({ method: "POST", path: wire.path, authorized: true });
      expect(server.requests[0]?.body).toMatchObject({ model: "loopback-model", stream: true });
      expect(JSON.stringify(server.requests[0]?.body)).toContain("You are terse.");
    });

    it("streams reasoning and sends the requested effort", async () => {
      const { server, model } = await start([{ reasoning: "Check the folder first.", text: "Done." }]);
      const { response, deltas } = await collect(model.stream(request(undefined, { effort: "high" })));
      expect(deltas("reasoning_delta").join("").trim()).toBe("Check the folder first.");
      expect(response.content[0]).toMatchObject({ type: "reasoning", text: "Check the folder first." });
      expect(response.content[1]).toEqual({ type: "text", text: "Done." });
      expect(readers.effort(server.requests[0]?.body)).toBeDefined();
    });

    it("without an effort, sends no effort the model could reject", async () => {
      const { server, model } = await start([{ text: "Fine." }]);
      await collect(model.stream(request()));
      expect(readers.effort(server.requests[0]?.body)).toBeUndefined();
    });

    it("replays earlier reasoning of the same model so the API can continue it", async () => {
      const { server, model } = await start([{ reasoning: "Plan: list the folder.", text: "Listing." }, { text: "Done." }]);
      const first = await collect(model.stream(request(undefined, { effort: "low" })));
      const history: ModelMessage[] = [
        { role: "user", content: "Hello?" },
        { role: "assistant", content: first.response.content },
        { role: "user", content: "Go on." },
      ];
      await collect(model.stream(request(history, { effort: "low" })));
      const expected = { "openai-responses": "enc_0", "anthropic-messages": "sig_0", "openai-completions": "Plan: list the folder." };
      expect(readers.replayedReasoning(server.requests[1]?.body)).toBe(expected[apiKind]);
    });

    it("sends a turn of another model without its reasoning signature, keeping the tool pairing", async () => {
      const { server, model } = await start([{ text: "Continuing." }]);
      const history: ModelMessage[] = [
        { role: "user", content: "Hello?" },
        {
          role: "assistant",
          provider: "elsewhere",
          model: "other-model",
          content: [
            { type: "reasoning", text: "Their private plan.", signature: "foreign-signature-xyz" },
            { type: "toolCall", id: "toolu_9", name: "ls", arguments: { path: "." } },
          ],
        },
        { role: "toolResult", toolCallId: "toolu_9", toolName: "ls", content: [{ type: "text", text: "a.txt" }], isError: false },
      ];
      const { response } = await collect(model.stream(request(history)));
      expect(response.stopReason).toBe("stop");
      const body = server.requests[0]?.body;
      expect(JSON.stringify(body)).not.toContain("foreign-signature-xyz");
      expect(readers.toolRoundTrip(body)).toMatchObject({ callId: "toolu_9", name: "ls", output: "a.txt" });
    });

    it("streams a tool call whose arguments arrive in pieces", async () => {
      const args = { path: "src/adapters", depth: 2, hidden: false };
      const { server, model } = await start([{ text: "Let me look.", toolCalls: [{ id: "call_ls_1", name: "ls", arguments: args }] }]);
      const { events, response, deltas } = await collect(model.stream(request()));
      const started = events.find((event) => event.type === "toolcall_start");
      expect(started).toMatchObject({ type: "toolcall_start", name: "ls" });
      expect(deltas("toolcall_delta").length).toBeGreaterThan(2);
      expect(JSON.parse(deltas("toolcall_delta").join(""))).toEqual(args);
      const ended = events.find((event) => event.type === "toolcall_end");
      expect(ended).toMatchObject({ toolCall: { type: "toolCall", name: "ls", arguments: args } });
      expect(response.stopReason).toBe("toolUse");
      expect(response.content.map((block) => block.type)).toEqual(["text", "toolCall"]);
      expect(readers.toolNames(server.requests[0]?.body)).toEqual(["ls"]);
      // Text spoken before the call comes first in the stream too (OUT-2 relies on this order).
      const firstText = events.findIndex((event) => event.type === "text_delta");
      expect(firstText).toBeLessThan(events.indexOf(started as ModelStreamEvent));
    });

    it("sends an earlier tool call and its result back in the API's own shape", async () => {
      const { server, model } = await start([
        { toolCalls: [{ id: "call_ls_7", name: "ls", arguments: { path: "." } }] },
        { text: "Two files." },
      ]);
      const first = await collect(model.stream(request()));
      const call = first.response.content.find((block) => block.type === "toolCall");
      if (call?.type !== "toolCall") throw new Error("no tool call");
      const history: ModelMessage[] = [
        { role: "user", content: "Hello?" },
        { role: "assistant", content: first.response.content },
        { role: "toolResult", toolCallId: call.id, toolName: "ls", content: [{ type: "text", text: "a.txt\nb.txt" }], isError: false },
      ];
      const second = await collect(model.stream(request(history)));
      expect(second.response.content).toEqual([{ type: "text", text: "Two files." }]);
      expect(readers.toolRoundTrip(server.requests[1]?.body)).toEqual({
        callId: "call_ls_7",
        name: "ls",
        arguments: { path: "." },
        output: "a.txt\nb.txt",
      });
    });

    it("maps the reported usage to token counts", async () => {
      const usage = apiKind === "anthropic-messages" ? { input: 120, output: 33, cacheRead: 40, cacheWrite: 7 } : { input: 120, output: 33, cacheRead: 40 };
      const { model } = await start([{ text: "Counted.", usage }]);
      const { response } = await collect(model.stream(request()));
      const cacheWrite = usage.cacheWrite ?? 0;
      expect(response.usage).toEqual({ input: 120, output: 33, cacheRead: 40, cacheWrite, total: 120 + 33 + 40 + cacheWrite });
    });

    it.each([429, 500, 503])("OUT-3 HTTP %i ends the stream as a retryable recovery error after one request", async (status) => {
      const { server, model } = await start([{ kind: "http-error", status, message: "try again later" }]);
      const { events, response } = await collect(model.stream(request()));
      expect(events).toHaveLength(1);
      expect(response.stopReason).toBe("error");
      expect(response.errorMessage).toContain(String(status));
      expect(response.retry).toEqual({ retryable: true, kind: "recovery", status });
      // The SDK's own retries are off: the agent loop is the only one retrying (visibly).
      expect(server.requests).toHaveLength(1);
    });

    it("OUT-3 HTTP 400 is final (not retryable)", async () => {
      const { model } = await start([{ kind: "http-error", status: 400, message: "context too long" }]);
      const { response } = await collect(model.stream(request()));
      expect(response.retry).toEqual({ retryable: false, kind: "recovery", status: 400 });
    });

    it("OUT-3 a server error reported inside a started stream is a retryable recovery error", async () => {
      const message = "The server had an error while processing your request. Sorry about that!";
      const { server, model } = await start([{ kind: "stream-error", response: { text: "Partial answer before the fault." }, afterFrames: 6, message }]);
      const { response, deltas } = await collect(model.stream(request()));
      expect(deltas("text_delta").length).toBeGreaterThan(0);
      expect(response.stopReason).toBe("error");
      expect(response.retry).toEqual({ retryable: true, kind: "recovery" });
      expect(server.requests).toHaveLength(1);
    });

    it("OUT-3 a connection dropped mid-stream is a retryable dropped error", async () => {
      const { server, model } = await start([{ kind: "drop", response: { text: "This answer never finishes, sadly." }, afterFrames: 6 }]);
      const { response, deltas } = await collect(model.stream(request()));
      expect(deltas("text_delta").length).toBeGreaterThan(0);
      expect(response.stopReason).toBe("error");
      expect(response.retry).toEqual({ retryable: true, kind: "dropped" });
      expect(server.requests).toHaveLength(1);
    });

    (readers.detectsCleanTruncation ? it : it.skip)(
      "OUT-3 a stream ended cleanly inside a tool call is a dropped error, never a partial call",
      async () => {
        const args = { path: "a/rather/long/path/to/list", recursive: true };
        const { model } = await start([{ kind: "truncate", response: { toolCalls: [{ id: "call_cut", name: "ls", arguments: args }] }, afterFrames: 6 }]);
        const { events, response } = await collect(model.stream(request()));
        expect(events.some((event) => event.type === "toolcall_delta")).toBe(true);
        expect(events.some((event) => event.type === "toolcall_end")).toBe(false);
        expect(response.stopReason).toBe("error");
        expect(response.retry).toEqual({ retryable: true, kind: "dropped" });
      },
    );

    it("an AbortSignal during the stream ends it as aborted", async () => {
      const { model } = await start([{ kind: "hang", response: { text: "Streaming slowly, then nothing." }, afterFrames: 6 }]);
      const controller = new AbortController();
      const events: ModelStreamEvent[] = [];
      for await (const event of model.stream(request(), controller.signal)) {
        events.push(event);
        if (event.type === "text_delta") controller.abort();
      }
      const done = events.filter((event) => event.type === "done");
      expect(done).toHaveLength(1);
      expect(done[0]).toMatchObject({ response: { stopReason: "aborted" } });
      expect((done[0] as Extract<ModelStreamEvent, { type: "done" }>).response.retry).toBeUndefined();
    });

    it("an already aborted signal sends no request", async () => {
      const { server, model } = await start([{ text: "unused" }]);
      const controller = new AbortController();
      controller.abort();
      const { response } = await collect(model.stream(request(), controller.signal));
      expect(response.stopReason).toBe("aborted");
      expect(server.requests).toHaveLength(0);
    });

    it("sends the explicit key, never a key or token from the environment", async () => {
      const { server, model } = await start([{ text: "ok" }]);
      await collect(model.stream(request()));
      const headers = server.requests[0]?.headers ?? {};
      expect(server.requests[0]?.authorized).toBe(true);
      expect(JSON.stringify(headers)).not.toContain(ENV_KEY);
      expect(JSON.stringify(headers)).not.toContain("org-from-environment");
    });
  });
}
