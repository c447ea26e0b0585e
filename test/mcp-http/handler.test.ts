// MCP-11: the public createMcpHttpHandler on a plain node:http server, with the SDK's real
// Streamable HTTP client: capability servers over HTTP, and the session limit.
import { afterEach, describe, expect, it } from "@jest/globals";
import { createServer, request, type Server } from "node:http";
import { gzipSync } from "node:zlib";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createMemoryApiKeyStore, createMemoryBudgetLedger } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createTenantAdmission } from "../../src/app/tenants/tenant-admission.js";
import { createProjectCapabilityServer } from "../../src/app/capabilities/project-capabilities.js";
import { createMcpHttpHandler } from "../../src/compose/mcp-http.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { CAPABILITY_TOOL_IDS } from "../../src/domain/capabilities/catalog.js";
import type { McpHttpHandler, McpHttpHandlerOptions } from "../../src/adapters/driving/mcp/transport/http-handler.js";
import { connectHttp, INITIALIZE, rawPost } from "./helpers.js";

/** A raw POST of exactly these bytes (chunked when no content-length is given): status, content type, body. */
function rawBytes(url: URL, headers: Record<string, string>, body: Buffer | string): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

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

async function client(url: URL, secret?: string): Promise<Client> {
  const connected = await connectHttp(url, secret === undefined ? {} : { transport: { requestInit: { headers: { authorization: `Bearer ${secret}` } } } });
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

  it("TEN-4: at the server-wide maxSessions a new session closes its own tenant's least recently used one, else one of the tenant holding most — never a smaller tenant's", async () => {
    const keys = createMemoryApiKeyStore();
    const [a, b, c] = [await keys.add({ id: "a" }, Date.now()), await keys.add({ id: "b" }, Date.now()), await keys.add({ id: "c" }, Date.now())];
    const admission = createTenantAdmission({ keys, budgets: createMemoryBudgetLedger(), cacheMs: 0, slotTtlMs: 30_000, now: Date.now });
    const { url, handler } = await serve({ auth: { kind: "keys", admission }, maxSessions: 3, maxSessionsPerTenant: 3 });
    const alive = async (session: Client) => session.listTools().then(() => true, () => false);
    const [a1, a2, b1] = [await client(url, a.secret), await client(url, a.secret), await client(url, b.secret)];
    // Full: c holds none, so the tenant holding most (a) gives up its least recently used.
    const c1 = await client(url, c.secret);
    expect(handler.sessions).toBe(3);
    expect([await alive(a1), await alive(a2), await alive(b1), await alive(c1)]).toEqual([false, true, true, true]);
    // Full again: b holds one, so its own is closed, not a's nor c's.
    const b2 = await client(url, b.secret);
    expect([await alive(a2), await alive(b1), await alive(c1), await alive(b2)]).toEqual([true, false, true, true]);
    await expect(createMcpHttpHandler({ maxSessionsPerTenant: 0, createServer: () => Promise.reject(new Error("unused")) })).rejects.toMatchObject({ code: "input_validation", field: "maxSessionsPerTenant" });
  });

  it("MCP-11 MCP-16 a body that is not plain JSON gets a clear JSON-RPC refusal, with or without authorization; other paths are 404", async () => {
    const open = await serve();
    const guarded = await serve({ auth: { kind: "token", token: "t".repeat(32) } });
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(120 * 1024) } });
    const cases: Array<[string, Record<string, string>, Buffer | string, number, number]> = [
      ["malformed JSON", { "content-type": "application/json" }, "{ not json", 400, -32700],
      ["nested too deep", { "content-type": "application/json" }, "[".repeat(200) + "]".repeat(200), 400, -32700],
      ["over 100 kb, chunked", { "content-type": "application/json" }, big, 413, -32600],
      ["over 100 kb, declared", { "content-type": "application/json", "content-length": String(Buffer.byteLength(big)) }, big, 413, -32600],
      ["an unsupported charset", { "content-type": "application/json; charset=latin1" }, JSON.stringify(INITIALIZE), 415, -32000],
      ["not JSON at all", { "content-type": "text/plain" }, JSON.stringify(INITIALIZE), 415, -32000],
      ["a gzip body", { "content-type": "application/json", "content-encoding": "gzip" }, gzipSync(JSON.stringify(INITIALIZE)), 415, -32000],
    ];
    for (const [name, headers, body, status, code] of cases) {
      // The body is refused before the token is looked at: the same answer with or without authorization.
      for (const url of [open.url, guarded.url]) {
        const answer = await rawBytes(url, headers, body);
        expect({ name, status: answer.status, type: answer.type, code: JSON.parse(answer.body).error?.code }).toEqual({ name, status, type: "application/json", code });
      }
    }
    // A byte-order mark and one trailing slash (with a query) are the same request and endpoint.
    expect((await rawBytes(new URL(`${open.url.pathname}/?x=1`, open.url), { "content-type": "application/json" }, `\ufeff${JSON.stringify(INITIALIZE)}`)).status).toBe(200);
    const elsewhere = await rawBytes(new URL("/elsewhere", open.url), { "content-type": "application/json" }, "{}");
    expect([elsewhere.status, JSON.parse(elsewhere.body).error.message]).toEqual([404, "Not Found: the MCP endpoint is /mcp"]);
    expect((await rawBytes(new URL(open.url.pathname.toUpperCase(), open.url), { "content-type": "application/json" }, JSON.stringify(INITIALIZE))).status).toBe(404);
  });

  it("MCP-11 a path not starting with / is an input_validation error", async () => {
    await expect(createMcpHttpHandler({ path: "mcp", createServer: () => Promise.reject(new Error("unused")) })).rejects.toMatchObject({ code: "input_validation" });
  });
});
