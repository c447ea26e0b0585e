// MCP-11: the head of a call's event stream leaves with the call's answer, in one write, instead
// of alone before it (the client then wakes once per call, as with a server answering at once);
// a call still running after RESPONSE_HEAD_HOLD_MS gets its head then. Real node:http server,
// the library's handler, the SDK's low-level Server, raw HTTP on the client side.
import { afterEach, describe, expect, it } from "@jest/globals";
import { createServer, request, type Server as HttpServer } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpHttpHandler } from "../../src/compose/mcp-http.js";
import { RESPONSE_HEAD_HOLD_MS } from "../../src/adapters/in/mcp/transport/http-response-head.js";
import { connectHttp, INITIALIZE, rawPost } from "./helpers.js";

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!();
});

/** A server with one tool, `wait`, answering after `arguments.ms` milliseconds. */
function waitingServer(): Server {
  const server = new Server({ name: "wait", version: "0.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "wait", inputSchema: { type: "object", properties: { ms: { type: "number" } } } }] }));
  server.setRequestHandler(CallToolRequestSchema, async (call) => {
    await new Promise((resolve) => setTimeout(resolve, Number(call.params.arguments?.ms ?? 0)));
    return { content: [{ type: "text", text: "waited" }] };
  });
  return server;
}

async function serve(): Promise<URL> {
  const handler = await createMcpHttpHandler({ createServer: waitingServer });
  const http: HttpServer = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  open.push(async () => {
    await handler.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
}

/** A session opened with raw requests: its id, after `initialize` and `notifications/initialized`. */
async function session(url: URL): Promise<string> {
  const initialized = await rawPost(url, {}, INITIALIZE);
  const id = initialized.headers["mcp-session-id"] as string;
  await rawPost(url, { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" }, { jsonrpc: "2.0", method: "notifications/initialized" });
  return id;
}

const callBody = (ms: number) => JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "wait", arguments: { ms } } });

describe("MCP-11 the response head of a call", () => {
  it("MCP-11 a call answered within the hold sends its head and its answer in one write", async () => {
    const url = await serve();
    const id = await session(url);
    const body = callBody(200);
    // Raw TCP, so the test sees the bytes as they arrive, not as an HTTP parser groups them.
    const chunks = await new Promise<string[]>((resolve, reject) => {
      const socket = connect(Number(url.port), "127.0.0.1");
      const received: string[] = [];
      socket.on("data", (chunk: Buffer) => received.push(chunk.toString()));
      socket.on("end", () => resolve(received));
      socket.on("error", reject);
      socket.write(
        `POST /mcp HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
          `mcp-session-id: ${id}\r\nmcp-protocol-version: 2025-11-25\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    expect(chunks[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(chunks[0]).toContain("text/event-stream");
    // The first bytes the client receives already carry the answer.
    expect(chunks[0]).toContain('"text":"waited"');
  });

  it("MCP-11 a call running longer than the hold gets its head after the hold, its answer when it ends", async () => {
    const url = await serve();
    const id = await session(url);
    const ms = RESPONSE_HEAD_HOLD_MS + 600;
    const began = Date.now();
    const timings = await new Promise<{ headAt: number; endAt: number; body: string }>((resolve, reject) => {
      const req = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" } }, (res) => {
        const headAt = Date.now() - began;
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ headAt, endAt: Date.now() - began, body: text }));
      });
      req.on("error", reject);
      req.end(callBody(ms));
    });
    expect(timings.headAt).toBeGreaterThanOrEqual(RESPONSE_HEAD_HOLD_MS - 50);
    expect(timings.headAt).toBeLessThan(ms - 100);
    expect(timings.endAt).toBeGreaterThanOrEqual(ms);
    expect(timings.body).toContain('"text":"waited"');
  });

  it("MCP-11 the SDK's client calls through a held head as before, and the standalone GET stream is not held", async () => {
    const url = await serve();
    const client = await connectHttp(url);
    open.push(() => client.close());
    const results = await Promise.all([0, 50, 100].map((ms) => client.callTool({ name: "wait", arguments: { ms } })));
    expect(results.map((result) => (result.content as Array<{ text: string }>)[0]!.text)).toEqual(["waited", "waited", "waited"]);
    // The GET stream has no first event to wait for: its head is sent at once.
    const id = await session(url);
    const began = Date.now();
    const headAt = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" } }, (res) => {
        resolve(Date.now() - began);
        res.destroy();
      });
      req.on("error", reject);
      req.end();
    });
    expect(headAt).toBeLessThan(RESPONSE_HEAD_HOLD_MS / 2);
  });
});
