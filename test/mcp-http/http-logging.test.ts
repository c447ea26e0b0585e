import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import { cleanup, REPO, tempDir } from "../cli/helpers.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";

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
