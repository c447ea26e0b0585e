// MCP-19: a prompt that declares `ask` asks the person for values when it is got. On 2026-07-28,
// prompts/get answers the revision's input-required result (a form) and the retry with the answer
// gets the prompt with the values filled in; a 2025-11-25 session is asked with elicitation/create
// on the request. Clients: the SDK's v2 client (which answers input rounds by itself), the v1
// client, and raw HTTP for each round and what a client library would never send.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { cleanup, REPO, tempDir } from "../cli/helpers.js";
import { connectHttp, rawPost, startHttpMcp, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(120_000);

const MODERN = "2026-07-28";
const PROMPT = "test_input_required_result_prompt";

let tmp: string;
let server: HttpMcpServer;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-prompt-ask-");
  server = await startHttpMcp(join(REPO, "test/mcp-http/fixtures/conformance"), ["--data-dir", join(tmp, "data"), "--workers", "1"]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await cleanup(tmp);
});

type Answer = { status: number; body: { id?: number; error?: { code: number; message: string }; result?: { resultType?: string; inputRequests?: Record<string, { method: string; params: { message: string; requestedSchema: unknown } }>; messages?: { content: { text?: string } }[] } } };

/** A raw 2026-07-28 prompts/get of the asking prompt. */
async function getRaw(id: number, capabilities: object, inputResponses?: Record<string, unknown>): Promise<Answer> {
  const meta = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": capabilities };
  const answer = await rawPost(server.url, { "mcp-protocol-version": MODERN, "mcp-method": "prompts/get", "mcp-name": PROMPT }, { jsonrpc: "2.0", id, method: "prompts/get", params: { name: PROMPT, _meta: meta, ...(inputResponses ? { inputResponses } : {}) } });
  return { status: answer.status, body: JSON.parse(answer.body) as Answer["body"] };
}

describe("MCP-19 prompts that ask for input", () => {
  it("MCP-19 on 2026-07-28 prompts/get answers an input-required form, and the retry with the answer gets the prompt with it filled in", async () => {
    const first = await getRaw(1, { elicitation: {} });
    expect(first.status).toBe(200);
    expect(first.body.result?.resultType).toBe("input_required");
    expect(first.body.result?.inputRequests?.ask).toMatchObject({ method: "elicitation/create", params: { message: "What context should the prompt use?", requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] } } });
    const done = await getRaw(2, { elicitation: {} }, { ask: { action: "accept", content: { context: "the Q3 report" } } });
    expect(done.body.result?.messages?.[0]?.content.text).toBe("Use this context: the Q3 report");
    // An answer that does not fit the form is asked again; a declined one ends the request.
    expect((await getRaw(3, { elicitation: {} }, { ask: { action: "accept", content: { context: 7 } } })).body.result?.resultType).toBe("input_required");
    expect((await getRaw(4, { elicitation: {} }, { ask: { action: "decline" } })).body.error).toMatchObject({ code: -32602, message: expect.stringContaining("declined") });
  });

  it("MCP-19 a 2026-07-28 client that declared no elicitation gets -32021 naming it", async () => {
    const refused = await getRaw(5, {});
    expect(refused).toMatchObject({ status: 400, body: { id: 5, error: { code: -32021 } } });
    expect(refused.body.error).toMatchObject({ data: { requiredCapabilities: { elicitation: {} } } });
  });

  it("MCP-19 the v2 client answers the prompt's form with its elicitation handler and gets the prompt", async () => {
    const client = new Client({ name: "modern-client", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN } } });
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { context: "from v2" } }));
    await client.connect(new StreamableHTTPClientTransport(server.url));
    try {
      const prompt = await client.getPrompt({ name: PROMPT });
      expect(prompt.messages[0]?.content).toEqual({ type: "text", text: "Use this context: from v2" });
    } finally {
      await client.close();
    }
  });

  it("MCP-18 MCP-19 a 2025-11-25 session is asked with elicitation/create; one without elicitation gets InvalidParams naming it", async () => {
    const client = await connectHttp(server.url, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { context: "from v1" } }));
    const plain = await connectHttp(server.url);
    try {
      const prompt = await client.getPrompt({ name: PROMPT });
      expect(prompt.messages[0]?.content).toEqual({ type: "text", text: "Use this context: from v1" });
      await expect(plain.getPrompt({ name: PROMPT })).rejects.toThrow(/declares no elicitation/);
    } finally {
      await Promise.all([client.close(), plain.close()]);
    }
  });
});
