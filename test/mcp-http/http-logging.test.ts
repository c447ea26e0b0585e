import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import { cleanup, REPO, tempDir } from "../cli/helpers.js";
import { connectHttp, rawPost, startHttpMcp, type HttpMcpServer } from "./helpers.js";

// MCP-15: over --http the workflow server declares `logging`: a run's context.log entries reach
// the client that called as notifications/message, from the level the client set.
jest.setTimeout(120_000);

let tmp: string;
let server: HttpMcpServer;
let client: Client;
const received: LoggingMessageNotification["params"][] = [];

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-logging-");
  server = await startHttpMcp(join(REPO, "test/mcp-http/fixtures/conformance"), ["--data-dir", join(tmp, "data"), "--workers", "1"]);
  client = await connectHttp(server.url);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void received.push(notification.params));
}, 90_000);
afterAll(async () => {
  await client?.close().catch(() => undefined);
  await server?.stop();
  await cleanup(tmp);
});

it("MCP-15 a run's context.log reaches the HTTP client as notifications/message (logger: the entrypoint), filtered by logging/setLevel", async () => {
  expect(client.getServerCapabilities()?.logging).toEqual({});
  await client.setLoggingLevel("warning");
  await client.callTool({ name: "test_tool_with_logging", arguments: {} });
  expect(received).toEqual([]);
  await client.setLoggingLevel("debug");
  const result = await client.callTool({ name: "test_tool_with_logging", arguments: {} });
  expect(result.isError).toBeFalsy();
  expect(received).toEqual(["Tool execution started", "Tool processing data", "Tool execution completed"].map((data) => ({ level: "info", logger: "test_tool_with_logging", data })));
  // Also on the worker's stderr, as before.
  expect(server.stderr()).toContain("info Tool processing data");
});

/** A 2026-07-28 `tools/call` of the logging tool over raw HTTP: the JSON-RPC frames of its response. */
async function modernLoggingCall(id: number, logLevel?: string): Promise<{ method?: string; params?: unknown; result?: { isError?: boolean } }[]> {
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, ...(logLevel ? { "io.modelcontextprotocol/logLevel": logLevel } : {}) };
  const answer = await rawPost(server.url, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "test_tool_with_logging" }, { jsonrpc: "2.0", id, method: "tools/call", params: { name: "test_tool_with_logging", arguments: {}, _meta: meta } });
  expect(answer.status).toBe(200);
  // A JSON body or SSE `data:` lines, whichever the server chose.
  const lines = answer.body.split(/\r?\n/).map((line) => line.replace(/^data:\s*/, "")).filter((line) => line.startsWith("{"));
  return lines.map((line) => JSON.parse(line) as { method?: string; params?: unknown; result?: { isError?: boolean } });
}

it("MCP-17 a 2026-07-28 call hears its run's logs only when its _meta names a logLevel, and from that level", async () => {
  const quiet = await modernLoggingCall(11);
  expect(quiet.filter((frame) => frame.method === "notifications/message")).toEqual([]);
  expect(quiet.at(-1)?.result?.isError).toBeFalsy();
  expect((await modernLoggingCall(12, "warning")).filter((frame) => frame.method === "notifications/message")).toEqual([]);
  const heard = (await modernLoggingCall(13, "debug")).filter((frame) => frame.method === "notifications/message").map((frame) => frame.params);
  expect(heard).toEqual(["Tool execution started", "Tool processing data", "Tool execution completed"].map((data) => ({ level: "info", logger: "test_tool_with_logging", data })));
});

it("MCP-17 a 2026-07-28 call whose run logs before its result is answered as an event stream, the result its last frame (not a JSON body written beside it)", async () => {
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/logLevel": "debug" };
  const answer = await rawPost(server.url, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "test_tool_with_logging" }, { jsonrpc: "2.0", id: 14, method: "tools/call", params: { name: "test_tool_with_logging", arguments: {}, _meta: meta } });
  expect(answer.status).toBe(200);
  expect(answer.headers["content-type"]).toMatch(/^text\/event-stream/);
  const frames = answer.body.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => JSON.parse(line.replace(/^data:\s*/, "")) as { id?: number; method?: string; result?: unknown });
  expect(frames.filter((frame) => frame.method === "notifications/message")).toHaveLength(3);
  expect(frames.at(-1)).toMatchObject({ id: 14, result: expect.any(Object) });
});
