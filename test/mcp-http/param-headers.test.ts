// MCP-17: an entrypoint param that declares `header` is published with `x-mcp-header` and
// mirrored by 2026-07-28 clients in an `Mcp-Param-<Name>` header (SEP-2243); the server refuses a
// call whose header disagrees with the argument (400, -32020) before it runs. 2025-11-25 sessions
// know no such headers and are served as before. Clients: the SDK's v2 client (which mirrors the
// header itself), the v1 client, and raw HTTP for what a client library would never send.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { cleanup, REPO, tempDir } from "../cli/helpers.js";
import { connectHttp, rawPost, startHttpMcp, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(120_000);

const MODERN = "2026-07-28";
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };

let tmp: string;
let server: HttpMcpServer;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-param-headers-");
  server = await startHttpMcp(join(REPO, "test/mcp-http/fixtures/conformance"), ["--data-dir", join(tmp, "data"), "--workers", "1"]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await cleanup(tmp);
});

/** A raw 2026-07-28 call of test_custom_header with these extra headers. */
async function callRaw(id: number, region: unknown, headers: Record<string, string>): Promise<{ status: number; body: { error?: { code: number; message: string }; result?: { structuredContent?: { output?: unknown } } } }> {
  const answer = await rawPost(server.url, { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "test_custom_header", ...headers }, { jsonrpc: "2.0", id, method: "tools/call", params: { name: "test_custom_header", arguments: { region }, _meta: ENVELOPE } });
  const json = answer.body.split(/\r?\n/).map((line) => line.replace(/^data:\s*/, "")).filter((line) => line.startsWith("{")).at(-1) ?? "{}";
  return { status: answer.status, body: JSON.parse(json) as never };
}

describe("MCP-17 params mirrored in Mcp-Param-* headers (SEP-2243)", () => {
  it("MCP-17 the v2 client reads x-mcp-header from tools/list, mirrors the argument and the call runs", async () => {
    const client = new Client({ name: "modern-client", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new StreamableHTTPClientTransport(server.url));
    try {
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === "test_custom_header")?.inputSchema.properties?.region).toMatchObject({ type: "string", "x-mcp-header": "Region" });
      const result = await client.callTool({ name: "test_custom_header", arguments: { region: "Zürich" } });
      expect(result.structuredContent).toMatchObject({ status: "success", output: "Answered in Zürich" });
    } finally {
      await client.close();
    }
  });

  it("MCP-17 a literal or Base64 header equal to the argument is accepted; a missing, different or badly encoded one is refused with 400 / -32020 before the call reaches the server", async () => {
    expect(await callRaw(1, "eu-west", { "mcp-param-region": "eu-west" })).toMatchObject({ status: 200, body: { result: { structuredContent: { output: "Answered in eu-west" } } } });
    expect(await callRaw(2, "Zürich", { "mcp-param-region": `=?base64?${Buffer.from("Zürich").toString("base64")}?=` })).toMatchObject({ status: 200, body: { result: { structuredContent: { output: "Answered in Zürich" } } } });
    for (const [id, headers, why] of [
      [3, {}, /Mcp-Param-Region header is absent/],
      [4, { "mcp-param-region": "us-east" }, /does not match the body's region/],
      [5, { "mcp-param-region": "=?base64?ZXUtd2VzdA?=" }, /invalid Base64/],
    ] as const) {
      const refused = await callRaw(id, "eu-west", headers);
      expect(refused).toMatchObject({ status: 400, body: { error: { code: -32020, message: expect.stringMatching(why) } } });
      expect((refused.body as { id?: number }).id).toBe(id);
    }
  });

  it("MCP-18 a 2025-11-25 session sends no such headers and its call runs", async () => {
    const client = await connectHttp(server.url);
    try {
      const result = await client.callTool({ name: "test_custom_header", arguments: { region: "eu-west" } });
      expect(result.structuredContent).toMatchObject({ status: "success", output: "Answered in eu-west" });
    } finally {
      await client.close();
    }
  });
});
