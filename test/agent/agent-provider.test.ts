import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { harness, kinds, ofKind, runNode } from "./helpers.js";

// A loopback Chat Completions endpoint: scripted SSE by request number; the first request is a 429.
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = (prompt: number, completion: number) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: "m", choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } })}\n\n`;

let server: Server;
let baseUrl = "";
const seen: Array<{ authorization?: string; body: { messages: Array<{ role: string }>; tools?: unknown[] } }> = [];
const read = async (req: IncomingMessage) => {
  let text = "";
  for await (const part of req) text += part;
  return JSON.parse(text) as { messages: Array<{ role: string }>; tools?: unknown[] };
};

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await read(req);
    seen.push({ ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), body });
    if (seen.length === 1) {
      res.writeHead(429, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "Rate limit reached", type: "rate_limit" } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (body.messages.at(-1)?.role === "tool") {
      res.end(`${chunk({ role: "assistant", content: "The folder is empty." })}${chunk({}, "stop")}${usage(200, 8)}data: [DONE]\n\n`);
    } else {
      res.end(
        `${chunk({ role: "assistant", content: "Listing." })}${chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }] })}${chunk({}, "tool_calls")}${usage(150, 12)}data: [DONE]\n\n`,
      );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("agent over a real provider adapter", () => {
  it("AG-4 a configured STEAMHARNESS_AGENT_MODELS entry runs through the provider adapter with its explicit key; a 429 is retried (OUT-3)", async () => {
    const h = harness();
    process.env.OPENAI_API_KEY = "sk-from-env-never-used";
    try {
      const node = createAgentNode({
        workdir: h.workdir,
        permissionPolicy: "read-only",
        retryDelayMs: 0,
        configuration: { values: { STEAMHARNESS_AGENT_MODELS: [{ id: "loop", source: "third-party", provider: "openai", model: "m", apiKind: "openai-completions", baseUrl, apiKey: "sk-configured" }] } },
      });
      const result = await runNode(node, { prompt: "What is here?" }, h.context("run-provider"));
      expect(result.error).toBeUndefined();
      expect(result.output).toMatchObject({ provider: "openai", model: "m", toolCallCount: 1, errCode: 0 });
      expect(kinds(result.items).slice(2)).toEqual(["agent-part:retry", "agent-part:text", "agent-part:tool", "agent-part:text"]);
      expect(ofKind(result.items, "agent-part", "retry")[0]!.content).toMatchObject({ kind: "recovery", status: 429, label: "Retry 1 / 10" });
      expect(seen.map((request) => request.authorization)).toEqual(["Bearer sk-configured", "Bearer sk-configured", "Bearer sk-configured"]);
      expect(await h.context("x").tokenUsage.total()).toMatchObject({ input: 350, output: 20 });
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });
});
