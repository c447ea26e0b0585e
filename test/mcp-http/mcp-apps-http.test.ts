// Item 7 of issue 26 (VIEW-5 over MCP-11): MCP Apps cards served over Streamable HTTP exactly as
// over stdio. Both servers are real child processes; the HTTP one is served by the public
// createMcpHttpHandler from a plain node:http server.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ModernClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { CARD_APP_URI } from "../../src/adapters/driving/mcp/card-app.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { STDIO_SERVER } from "../capabilities/stdio-client.js";
import { buildViewerAssets } from "../../ui/build.js";
import { connectHttp } from "./helpers.js";

jest.setTimeout(120_000);

const HTTP_SERVER = "test/fixtures/capability-http-server.ts";
const APPS = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };
const upsert = { action: "upsert", cardId: "board", kind: "browser", title: "Team board", target: { url: "https://example.com/board" } };

let assets: string;
const children: ChildProcess[] = [];
const clients: Client[] = [];

function startHttp(toolId: string): Promise<URL> {
  // Both servers start from their bundles (plain JavaScript), not through tsx.
  const child = spawn(process.execPath, [bundledFixture(HTTP_SERVER), toolId, "--viewer-assets", assets], { stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (\S+)/.exec(stderr);
      if (match) resolve(new URL(match[1]!));
    });
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}

async function stdioClient(toolId: string, apps: boolean): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bundledFixture(STDIO_SERVER), toolId, "--viewer-assets", assets], env: process.env as Record<string, string>, stderr: "pipe" });
  const client = new Client({ name: "apps-host", version: "1.0.0" }, apps ? { capabilities: APPS } : {});
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function httpClient(url: URL, apps: boolean): Promise<Client> {
  const client = await connectHttp(url, apps ? { capabilities: APPS } : {});
  clients.push(client);
  return client;
}

/** A v2 client pinned to 2026-07-28: no session, its capabilities sent in every request's `_meta` (MCP-17). */
async function modernClient(url: URL, apps: boolean): Promise<ModernClient> {
  const client = new ModernClient({ name: "apps-host", version: "1.0.0" }, { ...(apps ? { capabilities: APPS } : {}), versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** What a client sees of a card tool: the listing, the resources, the view, a call's result. */
async function seen(client: Client | ModernClient) {
  const tools = (await client.listTools()).tools;
  const resources = (await client.listResources()).resources;
  const view = (await client.readResource({ uri: CARD_APP_URI })).contents;
  const call = await client.callTool({ name: "present_card", arguments: upsert });
  return { tools, resources, view, call: { content: call.content, structuredContent: call.structuredContent } };
}

beforeAll(async () => {
  assets = tempDirRemovedAfterAll("viewer-assets-http-");
  await buildViewerAssets(assets);
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  for (const child of children) child.kill("SIGTERM");
});

describe("MCP-11 MCP Apps cards over Streamable HTTP (VIEW-5)", () => {
  it("MCP-11 an MCP Apps client over HTTP gets the ui:// view linked and served, identical to stdio", async () => {
    const url = await startHttp("workflow-ui_present_card");
    const overHttp = await seen(await httpClient(url, true));
    const overStdio = await seen(await stdioClient("workflow-ui_present_card", true));
    expect(overHttp.tools[0]!._meta).toEqual({ ui: { resourceUri: CARD_APP_URI }, "ui/resourceUri": CARD_APP_URI });
    expect(overHttp.resources).toEqual([expect.objectContaining({ uri: CARD_APP_URI, mimeType: RESOURCE_MIME_TYPE })]);
    const [content] = overHttp.view as Array<{ mimeType: string; text: string }>;
    expect(content!.mimeType).toBe("text/html;profile=mcp-app");
    expect(content!.text).toContain("steamharness-cards");
    expect(overHttp.call.structuredContent).toMatchObject({ cardCommand: { action: "upsert", cardId: "board" } });
    expect(overHttp).toEqual(overStdio);
  });

  it("MCP-11 over HTTP each session is judged by its own client: a plain client in a second session sees no view link", async () => {
    const url = await startHttp("workflow-ui_present_card");
    const apps = await httpClient(url, true);
    const plain = await httpClient(url, false);
    expect((await plain.listTools()).tools[0]!._meta).toBeUndefined();
    expect((await apps.listTools()).tools[0]!._meta).toEqual(expect.objectContaining({ ui: { resourceUri: CARD_APP_URI } }));
  });

  it("MCP-17 MCP-18 MCP Apps cards over both revisions: a stateless 2026-07-28 client that declares the extension in its requests sees what a 2025-11-25 session and stdio see; one that does not sees no view link", async () => {
    const url = await startHttp("workflow-ui_present_card");
    const modern = await modernClient(url, true);
    const plain = await modernClient(url, false);
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect(await seen(modern)).toEqual(await seen(await httpClient(url, true)));
      expect((await plain.listTools()).tools[0]!._meta).toBeUndefined();
    } finally {
      await Promise.all([modern.close(), plain.close()]);
    }
  });
});
