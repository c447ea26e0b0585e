// MCP-11: the public createMcpHttpHandler on a plain node:http server, with the SDK's real
// Streamable HTTP client: capability servers over HTTP, and the session limit.
import { afterEach, describe, expect, it } from "@jest/globals";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { MemoryStorage } from "../../src/adapters/out/memory/memory-storage.js";
import { createProjectCapabilityServer } from "../../src/app/capabilities/project-capabilities.js";
import { createMcpHttpHandler } from "../../src/compose/mcp-http.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { CAPABILITY_TOOL_IDS } from "../../src/domain/capabilities/catalog.js";
import type { McpHttpHandler, McpHttpHandlerOptions } from "../../src/adapters/in/mcp/transport/http-handler.js";
import { connectHttp, rawPost } from "./helpers.js";

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!();
});

async function serve(options: Omit<McpHttpHandlerOptions, "createServer"> = {}): Promise<{ url: URL; handler: McpHttpHandler }> {
  const context = createNodeContext({ projectId: "handler-test", storage: new MemoryStorage() });
  const handler = await createMcpHttpHandler({ ...options, createServer: () => createProjectCapabilityServer(CAPABILITY_TOOL_IDS.kv, { context }) });
  const http: Server = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  open.push(async () => {
    await handler.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return { url: new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}${options.path ?? "/mcp"}`), handler };
}

async function client(url: URL): Promise<Client> {
  const connected = await connectHttp(url);
  open.push(() => connected.close());
  return connected;
}

describe("MCP-11 createMcpHttpHandler", () => {
  it("MCP-11 serves a capability server over HTTP: sessions share the host's store", async () => {
    const { url, handler } = await serve({ path: "/kv" });
    const writer = await client(url);
    const reader = await client(url);
    expect(handler.sessions).toBe(2);
    await writer.callTool({ name: "kv_store", arguments: { action: "set", key: "goal", value: "ship" } });
    const read = await reader.callTool({ name: "kv_store", arguments: { action: "get", key: "goal" } });
    expect(read.structuredContent).toMatchObject({ result: { key: "goal", value: "ship" } });
    expect((await rawPost(new URL("/mcp", url), {}, {})).status).toBe(404);
  });

  it("MCP-11 a new session beyond maxSessions closes the least recently used one, never locking new clients out", async () => {
    const { url, handler } = await serve({ maxSessions: 2 });
    const first = await client(url);
    const second = await client(url);
    await first.listTools(); // first is now the most recently used
    const third = await client(url);
    expect(handler.sessions).toBe(2);
    expect((await first.listTools()).tools).toHaveLength(1);
    expect((await third.listTools()).tools).toHaveLength(1);
    await expect(second.listTools()).rejects.toThrow();
  });

  it("MCP-11 a path not starting with / is an input_validation error", async () => {
    await expect(createMcpHttpHandler({ path: "mcp", createServer: () => Promise.reject(new Error("unused")) })).rejects.toMatchObject({ code: "input_validation" });
  });
});
