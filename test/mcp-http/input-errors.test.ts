/**
 * DX-17: over Streamable HTTP, a call with invalid arguments is a tool result with `isError: true`
 * and the validation message (the calling model reads it and corrects the call); JSON-RPC
 * InvalidParams stays for an unknown tool. Real `steamharness mcp --http` and a real capability
 * server on the public HTTP handler, each driven by the SDK client (stdio: test/cli/mcp-server.test.ts
 * and test/capabilities/stdio.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CAPABILITY_TOOL_IDS } from "../../src/domain/capabilities/catalog.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { cleanEnv, cleanup, KITCHEN, rejection, tempDir } from "../cli/helpers.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(90_000);

let tmp: string;
let workflow: HttpMcpServer;
let capability: ChildProcess;
let capabilityUrl: URL;
const clients: Client[] = [];

beforeAll(async () => {
  tmp = await tempDir("sh-dx17-");
  workflow = await startHttpMcp(KITCHEN, ["--data-dir", join(tmp, "data")], { env: cleanEnv({ HOME: tmp }) });
  capability = spawn(process.execPath, [bundledFixture("test/fixtures/capability-http-server.ts"), CAPABILITY_TOOL_IDS.kv], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  capabilityUrl = await new Promise<URL>((resolve, reject) => {
    capability.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (\S+)/.exec(stderr);
      if (match) resolve(new URL(match[1]!));
    });
    capability.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await workflow?.stop();
  if (capability && capability.exitCode === null) {
    const exited = new Promise((resolve) => capability.once("exit", resolve));
    capability.kill("SIGTERM");
    await exited;
  }
  await cleanup(tmp);
});

async function client(url: URL): Promise<Client> {
  const connected = await connectHttp(url);
  clients.push(connected);
  return connected;
}

describe("DX-17 MCP input errors as tool results over --http", () => {
  it("DX-17: a workflow tool called over mcp --http with invalid arguments answers isError with the validation message; the same session then runs a valid call", async () => {
    const session = await client(workflow.url);
    expect(rejection(await session.callTool({ name: "echo", arguments: { text: 5 } }))).toContain("arguments.text: Expected string");
    expect(rejection(await session.callTool({ name: "echo", arguments: {} }))).toContain("arguments.text: required property is missing");
    const ok = (await session.callTool({ name: "echo", arguments: { text: "fixed" } })) as CallToolResult;
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent?.status).toBe("success");
  });

  it("DX-17: an unknown workflow tool over mcp --http stays JSON-RPC InvalidParams", async () => {
    const session = await client(workflow.url);
    await expect(session.callTool({ name: "nope", arguments: {} })).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: "MCP error -32602: unknown tool: nope" });
  });

  it("DX-17: a capability server over HTTP answers invalid arguments as isError with the field, and an unknown tool as InvalidParams", async () => {
    const session = await client(capabilityUrl);
    const result = (await session.callTool({ name: "kv_store", arguments: { action: "get", key: 5 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ error: { code: "input_validation", message: expect.stringContaining("key"), field: "key" } });
    await expect(session.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    expect(((await session.callTool({ name: "kv_store", arguments: { action: "set", key: "k", value: 1 } })) as CallToolResult).isError).toBeFalsy();
  });
});
