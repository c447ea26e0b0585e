// MCP-17, MCP-18: `steamharness mcp --http` speaks the 2026-07-28 revision (stateless, the
// per-request `_meta` envelope, `server/discover`) and 2025-11-25 on the same endpoint. Clients:
// the SDK's v2 client negotiating the new revision, the v1 client (an independent 2025-11-25
// implementation), and raw HTTP for what a client library would never send. Two real hosts on
// one data dir show that a 2026-07-28 client needs no session: its requests alternate hosts.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { cleanup, KITCHEN, KITCHEN_ID, tempDir } from "../cli/helpers.js";
import { connectHttp, rawPost, startHttpMcp, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(120_000);

const MODERN = "2026-07-28";
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
const MODERN_HEADERS = { "mcp-protocol-version": MODERN, "mcp-method": "server/discover" };

let tmp: string;
let a: HttpMcpServer;
let b: HttpMcpServer;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-modern-");
  const data = join(tmp, "data");
  [a, b] = await Promise.all([startHttpMcp(KITCHEN, ["--data-dir", data, "--workers", "1"]), startHttpMcp(KITCHEN, ["--data-dir", data, "--workers", "1"])]);
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await cleanup(tmp);
});

/** A v2 client pinned to the 2026-07-28 revision (no `initialize`, no session). */
async function connectModern(url: URL, fetchVia?: (url: URL) => URL, capabilities: Record<string, object> = {}): Promise<Client> {
  const client = new Client({ name: "modern-client", version: "1.0.0" }, { capabilities, versionNegotiation: { mode: { pin: MODERN } } });
  const fetchOf = fetchVia ? ((input: string | URL | Request, init?: RequestInit) => fetch(fetchVia(new URL(input instanceof Request ? input.url : input)), init)) : undefined;
  await client.connect(new StreamableHTTPClientTransport(url, fetchOf ? { fetch: fetchOf } : {}));
  return client;
}

describe("MCP-17 2026-07-28 over Streamable HTTP, stateless", () => {
  it("MCP-17 the v2 client negotiates 2026-07-28 by server/discover and lists and calls tools with no session", async () => {
    const sessions: (string | null)[] = [];
    const client = new Client({ name: "modern-client", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    const recording = async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(input, init);
      sessions.push(response.headers.get("mcp-session-id"));
      return response;
    };
    await client.connect(new StreamableHTTPClientTransport(a.url, { fetch: recording }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(client.getServerVersion()).toMatchObject({ name: `workflow-${KITCHEN_ID}` });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("echo");
      const result = await client.callTool({ name: "echo", arguments: { text: "stateless", count: 1 } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: "success", entrypointId: "echo", output: { params: { text: "stateless", count: 1 } } });
      expect(sessions.length).toBeGreaterThanOrEqual(3);
      expect(sessions.every((id) => id === null)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("MCP-17 any host answers any request: a client whose every request goes to the other host lists the same tools and calls them", async () => {
    let turn = 0;
    // A round robin in the client's fetch: the first request to host a, the next to b, and so on.
    const other = (url: URL) => new URL(url.pathname, turn++ % 2 === 0 ? a.url : b.url);
    const client = await connectModern(a.url, other);
    try {
      const first = await client.listTools();
      const second = await client.listTools();
      expect(second.tools).toEqual(first.tools);
      for (const text of ["one", "two"]) {
        const result = await client.callTool({ name: "echo", arguments: { text, count: 1 } });
        expect(result.structuredContent).toMatchObject({ status: "success", output: { params: { text } } });
      }
      expect(turn).toBeGreaterThanOrEqual(5);
    } finally {
      await client.close();
    }
  });

  it("MCP-17 MCP-19 a run that waits for input answers the revision's input_required result, and the v2 client's retries with the answers reach it on either host", async () => {
    let turn = 0;
    const other = (url: URL) => new URL(url.pathname, turn++ % 2 === 0 ? a.url : b.url);
    const client = await connectModern(a.url, other, { elicitation: { form: {} } });
    // The SDK's client fulfils each input request with its elicitation handler and calls again.
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message);
      const content: Record<string, string> = asked.length === 1 ? { answer: "blue" } : { size: "m" };
      return { action: "accept", content };
    });
    try {
      const before = turn;
      const result = await client.callTool({ name: "ask_twice", arguments: {} }, { timeout: 60_000 });
      expect(result.structuredContent).toMatchObject({ status: "success", output: { first: { answer: "blue" }, second: { size: "m" } } });
      expect(asked).toHaveLength(2);
      // Three legs of one call (two input-required rounds and the answer), alternating hosts.
      expect(turn - before).toBe(3);
    } finally {
      await client.close();
    }
  });

  it("MCP-17 server/discover names 2026-07-28 and the server, with no initialize before it", async () => {
    const answer = await rawPost(a.url, MODERN_HEADERS, { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } });
    expect(answer.status).toBe(200);
    expect(answer.headers["mcp-session-id"]).toBeUndefined();
    const body = JSON.parse(answer.body) as { result: { supportedVersions: string[]; capabilities: { tools?: object }; serverInfo?: { name: string } } };
    expect(body.result.supportedVersions).toContain(MODERN);
    expect(body.result.capabilities.tools).toBeDefined();
  });

  it("MCP-17 a tools/call's JSON answer is sent whole: its length is given and it is not chunked", async () => {
    const call = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { text: "whole", count: 1 }, _meta: ENVELOPE } };
    const answer = await rawPost(a.url, { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "echo" }, call);
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toMatch(/^application\/json/);
    expect(answer.headers["transfer-encoding"]).toBeUndefined();
    expect(answer.headers["content-length"]).toBe(String(Buffer.byteLength(answer.body)));
    expect(JSON.parse(answer.body)).toMatchObject({ id: 3, result: { structuredContent: { status: "success", output: { params: { text: "whole" } } } } });
  });

  it("MCP-17 a version header that contradicts the body's envelope is refused, and nothing runs", async () => {
    const answer = await rawPost(a.url, { "mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list" }, { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: ENVELOPE } });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect((JSON.parse(answer.body) as { error?: { code: number } }).error?.code).toEqual(expect.any(Number));
  });
});

describe("MCP-18 2025-11-25 clients on the same endpoint", () => {
  it("MCP-18 the v1 client still initializes a session and calls tools", async () => {
    const client = await connectHttp(a.url);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: `workflow-${KITCHEN_ID}` });
      const result = await client.callTool({ name: "echo", arguments: { text: "legacy", count: 1 } });
      expect(result.structuredContent).toMatchObject({ status: "success", output: { params: { text: "legacy" } } });
    } finally {
      await client.close();
    }
  });
});
