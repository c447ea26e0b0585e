import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { CAPABILITY_ADDRESSES, CAPABILITY_TOOL_IDS as IDS, composeToolId } from "../../src/domain/capabilities/catalog.js";
import { HOST_BRIDGE_TOKEN_ENV, HOST_BRIDGE_URL_ENV } from "../../src/domain/capabilities/host-bridge.js";
import { fixture, mcpCall } from "./support.js";
import { STDIO_SERVER, spawnCapabilityServer } from "./stdio-client.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

// Every capability server in its own child process, driven by the SDK Client over real stdio.
describe("CAP-1 capability servers over real stdio", () => {
  const clients = new Map<string, Client>();
  let bridge: ReturnType<typeof createServer>;
  let env: Record<string, string>;
  let directory: string;

  beforeAll(async () => {
    bridge = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ configurations: [], authorized: req.headers.authorization === "Bearer stdio-token" }));
      });
    });
    await new Promise<void>((resolve) => bridge.listen(0, "127.0.0.1", resolve));
    env = { [HOST_BRIDGE_URL_ENV]: `http://127.0.0.1:${(bridge.address() as AddressInfo).port}`, [HOST_BRIDGE_TOKEN_ENV]: "stdio-token" };
    directory = mkdtempSync(join(tmpdir(), "capability-stdio-"));
    await Promise.all(
      CAPABILITY_ADDRESSES.map(async ({ toolId }) => {
        const args = toolId === IDS.kv ? ["--sqlite", directory, "--conversation", "conv-1"] : [];
        clients.set(toolId, await spawnCapabilityServer(toolId, { env, args }));
      }),
    );
  }, 180_000);

  afterAll(async () => {
    for (const client of clients.values()) await client.close();
    await new Promise<void>((resolve) => bridge.close(() => resolve()));
    rmSync(directory, { recursive: true, force: true });
  });

  for (const globalMemory of [true, false]) {
    it(`CAP-1 composed names, descriptions and input schemas are identical to the native tools (globalMemory ${globalMemory})`, async () => {
      const fx = await fixture({ globalMemory, env });
      const expected = CAPABILITY_ADDRESSES.map((a) => a.toolId).filter((id) => globalMemory || id !== IDS.memory);
      expect(fx.tools.map((t) => t.name)).toEqual(expected);
      for (const tool of fx.tools) {
        const client = clients.get(tool.name)!;
        const serverName = client.getServerVersion()!.name;
        const listed = (await client.listTools()).tools;
        expect(listed).toHaveLength(1);
        expect(composeToolId(serverName, listed[0].name)).toBe(tool.name);
        expect(listed[0].description).toBe(tool.description);
        expect(JSON.stringify(listed[0].inputSchema)).toBe(JSON.stringify(tool.parameters));
        expect(listed[0].inputSchema).toEqual(JSON.parse(JSON.stringify(tool.parameters)));
      }
    });
  }

  it("CAP-0 every capability succeeds and fails over stdio with the CAP-0 shapes (SQLite-backed KV)", async () => {
    const kv = clients.get(IDS.kv)!;
    const set = await mcpCall(kv, "kv_store", { action: "set", scope: "conversation", key: "note", value: { 中: "😀" } });
    expect(set.structured.resourceCard.target).toEqual({ source: "local", projectId: "stdio-project", scope: "conversation", key: "note", conversationId: "conv-1" });
    expect((await mcpCall(kv, "kv_store", { action: "get", scope: "conversation", key: "note" })).structured.result.value).toEqual({ 中: "😀" });
    const missing = await mcpCall(kv, "kv_store", { action: "get", key: "absent" });
    expect(missing).toMatchObject({ ok: false, structured: { error: { code: "not_found", field: "key" } } });
    const reserved = await mcpCall(kv, "kv_store", { action: "set", key: "tokenUsage.total", value: 0 });
    expect(reserved.structured).toEqual({ error: { code: "input_validation", message: expect.stringContaining("reserved"), field: "key" } });
    expect(JSON.parse(reserved.text)).toEqual(reserved.structured);
    const knowledge = clients.get(IDS.knowledge)!;
    await mcpCall(knowledge, "knowledge_documents", { action: "upsert", documentId: "a", markdown: "stdio body" });
    expect((await mcpCall(knowledge, "knowledge_documents", { action: "search", query: "stdio" })).structured.result.hits[0].documentId).toBe("a");
    const memory = clients.get(IDS.memory)!;
    const remembered = await mcpCall(memory, "global_memory", { action: "remember", memoryId: "pref", markdown: "Prefers dark mode" });
    expect(remembered.structured.result.memoryId).toBe("pref");
    expect((await mcpCall(memory, "global_memory", { action: "list" })).structured.result.memories.map((m: any) => m.memoryId)).toEqual(["pref"]);
    expect((await mcpCall(memory, "global_memory", { action: "remember", markdown: "key: ghp_" + "x1".repeat(18) })).structured.error).toMatchObject({ code: "input_validation", field: "markdown" });
    const card = clients.get(IDS.presentCard)!;
    expect((await mcpCall(card, "present_card", { action: "remove", cardId: "c" })).structured.cardCommand).toEqual({ action: "remove", cardId: "c" });
    expect((await mcpCall(card, "present_card", { action: "upsert", cardId: "c", kind: "file", target: { source: "local", projectId: "p", filePath: "../x" } })).structured.error.field).toBe("target.filePath");
    const host = await mcpCall(clients.get(IDS.hostConfiguration)!, "project_configurations", { action: "get_configurations" });
    expect(host.structured.result).toEqual({ configurations: [], authorized: true });
  });

  it("CAP-0 / DX-17 malformed arguments are tool results with isError, an unknown tool is InvalidParams, and the server keeps serving", async () => {
    const kv = clients.get(IDS.kv)!;
    const malformed: unknown[] = [{}, { action: 42 }, { action: "get" }, { action: "get", key: 5 }, { action: "set", key: "x" }, { action: "get", key: "x", bogus: 1 }, { action: "list", limit: 1e9 }, { action: "list", limit: 1.5 }];
    for (const args of malformed) {
      const result = await mcpCall(kv, "kv_store", args);
      expect([args, result.ok, result.structured.error.code]).toEqual([args, false, "input_validation"]);
      expect(typeof result.structured.error.field).toBe("string");
      expect(result.structured.error.message).toContain(result.structured.error.field);
    }
    await expect(kv.callTool({ name: "no_such_tool", arguments: { action: "get", key: "x" } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: "MCP error -32602: unknown tool: no_such_tool; this server serves kv_store" });
    // Arguments that are not an object fail the SDK's request validation: a JSON-RPC error, not a crash.
    await expect(kv.request({ method: "tools/call", params: { name: "kv_store", arguments: [1, 2] } } as any, CallToolResultSchema)).rejects.toThrow(/Invalid/);
    await expect(kv.request({ method: "tools/call", params: { name: 7 } } as any, CallToolResultSchema)).rejects.toThrow();
    expect((await mcpCall(kv, "kv_store", { action: "get", scope: "conversation", key: "note" })).ok).toBe(true);
  });

  it("CAP-3 a denying approve over stdio writes nothing", async () => {
    const directoryDenied = mkdtempSync(join(tmpdir(), "capability-deny-"));
    const denied = await spawnCapabilityServer(IDS.kv, { args: ["--sqlite", directoryDenied, "--deny"] });
    expect((await mcpCall(denied, "kv_store", { action: "set", key: "k", value: 1 })).structured.error.code).toBe("approval_denied");
    await denied.close();
    const open = await spawnCapabilityServer(IDS.kv, { args: ["--sqlite", directoryDenied] });
    expect((await mcpCall(open, "kv_store", { action: "get", key: "k" })).structured.error.code).toBe("not_found");
    await open.close();
    rmSync(directoryDenied, { recursive: true, force: true });
  }, 120_000);

  it("CAP-0 garbage on stdin does not stop the server", async () => {
    const child = spawn(process.execPath, [bundledFixture(STDIO_SERVER), IDS.kv], { stdio: ["pipe", "pipe", "pipe"] });
    const lines: any[] = [];
    let buffer = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      let index: number;
      while ((index = buffer.indexOf("\n")) !== -1) {
        lines.push(JSON.parse(buffer.slice(0, index)));
        buffer = buffer.slice(index + 1);
      }
    });
    const send = (text: string) => child.stdin.write(`${text}\n`);
    send("this is not json");
    send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kv_store","arguments":{"action":"get","key":"x"}}');
    send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } }));
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "kv_store", arguments: { action: "nope" } } }));
    const deadline = Date.now() + 90_000;
    while (!lines.some((l) => l.id === 3) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill();
    expect(lines.find((l) => l.id === 2)?.result.serverInfo.name).toBe("workflow-kv");
    expect(lines.find((l) => l.id === 3)?.result).toMatchObject({ isError: true, structuredContent: { error: { code: "input_validation", field: "action" } } });
  }, 120_000);
});
