// MCP-11: `steamharness mcp <dir> --http` as a real child process, reached with the SDK's real
// Streamable HTTP client.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cleanup, KITCHEN, KITCHEN_ID, runCli, tempDir } from "../cli/helpers.js";
import { connectHttp, INITIALIZE, rawPost, startHttpMcp, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(120_000);

let tmp: string;
let a: HttpMcpServer;
let b: HttpMcpServer;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-http-");
  [a, b] = await Promise.all([startHttpMcp(KITCHEN, ["--data-dir", join(tmp, "data-a"), "--workers", "1"]), startHttpMcp(KITCHEN, ["--data-dir", join(tmp, "data-b"), "--workers", "1"])]);
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await cleanup(tmp);
});

describe("MCP-11 Streamable HTTP", () => {
  it("MCP-11 prints the endpoint's URL on stderr and serves tools/list and tools/call to the SDK client", async () => {
    expect(a.url.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connectHttp(a.url);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: `workflow-${KITCHEN_ID}`, version: "2.3.4" });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("echo");
      const result = (await client.callTool({ name: "echo", arguments: { text: "over http", count: 2 } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: "success", entrypointId: "echo", output: { params: { text: "over http", count: 2, mode: "a" } } });
    } finally {
      await client.close();
    }
  });

  it("MCP-11 a client talking to either of two hosts in turn gets the identical tools/list", async () => {
    const lists: string[] = [];
    for (const server of [a, b, a, b]) {
      const client = await connectHttp(server.url);
      lists.push(JSON.stringify((await client.listTools()).tools));
      await client.close();
    }
    expect(new Set(lists).size).toBe(1);
    expect(JSON.parse(lists[0]!).length).toBeGreaterThan(5);
  });

  it("MCP-11 a request whose Host header names another host is refused with 403 (DNS rebinding)", async () => {
    const bad = await rawPost(a.url, { host: `evil.example:${a.url.port}` }, INITIALIZE);
    expect(bad.status).toBe(403);
    expect(bad.body).toContain("Invalid Host");
    const good = await rawPost(a.url, { host: `localhost:${a.url.port}` }, INITIALIZE);
    expect(good.status).toBe(200);
  });

  it("MCP-11 a browser request from a foreign Origin is refused with 403; a loopback origin is served", async () => {
    const bad = await rawPost(a.url, { origin: "https://evil.example" }, INITIALIZE);
    expect(bad.status).toBe(403);
    expect(bad.body).toContain("Invalid Origin");
    const good = await rawPost(a.url, { origin: `http://localhost:${a.url.port}` }, INITIALIZE);
    expect(good.status).toBe(200);
  });

  it("MCP-11 a request with an unknown session id is 404 and one without a session that is not initialize is 400", async () => {
    expect((await rawPost(a.url, { "mcp-session-id": "no-such-session" }, { jsonrpc: "2.0", id: 2, method: "tools/list" })).status).toBe(404);
    expect((await rawPost(a.url, {}, { jsonrpc: "2.0", id: 2, method: "tools/list" })).status).toBe(400);
  });

  it("MCP-11 binding a non-loopback address without authorization is refused with a clear message and exit code 2", async () => {
    const refused = await runCli(["mcp", KITCHEN, "--http", "--host", "0.0.0.0", "--port", "0", "--data-dir", join(tmp, "data-c")]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("refusing to serve 0.0.0.0 without authorization");
    expect(refused.stderr).toContain("--auth-token-file");
  });

  it("MCP-11 HTTP flags without --http are a usage error (exit code 2)", async () => {
    const refused = await runCli(["mcp", KITCHEN, "--port", "8080"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--port only applies with --http");
  });

  it("MCP-11 with --auth-token-file a non-loopback bind is served, a request without the token is 401 and one with it works", async () => {
    const tokenFile = join(tmp, "token");
    const token = "static-token-0123456789abcdef";
    await writeFile(tokenFile, `${token}\n`);
    const server = await startHttpMcp(KITCHEN, ["--host", "0.0.0.0", "--auth-token-file", tokenFile, "--data-dir", join(tmp, "data-d"), "--workers", "1"]);
    try {
      const url = new URL(server.url.href.replace("0.0.0.0", "127.0.0.1"));
      const anonymous = await rawPost(url, {}, INITIALIZE);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers["www-authenticate"]).toMatch(/^Bearer error="invalid_token"/);
      expect((await rawPost(url, { authorization: "Bearer wrong-token-0123456789abc" }, INITIALIZE)).status).toBe(401);
      const client = await connectHttp(url, { transport: { requestInit: { headers: { authorization: `Bearer ${token}` } } } });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("echo");
      await client.close();
    } finally {
      await server.stop();
    }
  });
});
