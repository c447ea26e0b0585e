import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { CARD_APP_URI } from "../../src/adapters/driving/mcp/card-app.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { STDIO_SERVER } from "../capabilities/stdio-client.js";
import { buildViewerAssets } from "../../ui/build.js";

let assets: string;
const clients: Client[] = [];

/** The capability server as a real child process, reached by the SDK's own Client over stdio. */
async function connect(toolId: string, apps: boolean): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bundledFixture(STDIO_SERVER), toolId, "--viewer-assets", assets], env: process.env as Record<string, string>, stderr: "pipe" });
  const client = new Client({ name: apps ? "apps-host" : "plain-host", version: "1.0.0" }, apps ? { capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } } : {});
  await client.connect(transport);
  clients.push(client);
  return client;
}

const upsert = { action: "upsert", cardId: "board", kind: "browser", title: "Team board", target: { url: "https://example.com/board" } };

beforeAll(async () => {
  assets = tempDirRemovedAfterAll("viewer-assets-");
  await buildViewerAssets(assets);
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

describe("VIEW-5 resource cards as MCP Apps views", () => {
  it("VIEW-5 a client announcing MCP Apps gets card tools linked to a ui:// view, and the view itself", async () => {
    const client = await connect("workflow-ui_present_card", true);
    const [tool] = (await client.listTools()).tools;
    expect(tool!._meta).toEqual({ ui: { resourceUri: CARD_APP_URI }, "ui/resourceUri": CARD_APP_URI });
    const { resources } = await client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: CARD_APP_URI, mimeType: RESOURCE_MIME_TYPE })]);
    const read = await client.readResource({ uri: CARD_APP_URI });
    const [content] = read.contents as Array<{ uri: string; mimeType: string; text: string }>;
    expect(content!.mimeType).toBe("text/html;profile=mcp-app");
    expect(content!.text).toMatch(/^<!doctype html>/);
    expect(content!.text).toContain("steamharness-cards");
    await expect(client.readResource({ uri: "ui://steamharness/other.html" })).rejects.toThrow();
  }, 60_000);

  it("VIEW-5 hosts without MCP Apps see the listing and the text result unchanged", async () => {
    const apps = await connect("workflow-ui_present_card", true);
    const plain = await connect("workflow-ui_present_card", false);
    const [appsTool] = (await apps.listTools()).tools;
    const [plainTool] = (await plain.listTools()).tools;
    expect(plainTool!._meta).toBeUndefined();
    const { _meta: _linked, ...appsRest } = appsTool!;
    expect(appsRest).toEqual(plainTool);
    const viaApps = await apps.callTool({ name: "present_card", arguments: upsert });
    const viaPlain = await plain.callTool({ name: "present_card", arguments: upsert });
    expect(viaApps.content).toEqual(viaPlain.content);
    expect(viaApps.structuredContent).toEqual(viaPlain.structuredContent);
    expect(viaPlain.structuredContent).toMatchObject({ cardCommand: { action: "upsert", cardId: "board", title: "Team board" } });
  }, 60_000);

  it("VIEW-5 KV results link the view too (their resource card travels in structuredContent); tools without cards do not", async () => {
    const kv = await connect("workflow-kv_kv_store", true);
    expect((await kv.listTools()).tools[0]!._meta).toEqual(expect.objectContaining({ ui: { resourceUri: CARD_APP_URI } }));
    const result = await kv.callTool({ name: "kv_store", arguments: { action: "set", key: "goal", value: "ship" } });
    expect(result.structuredContent).toMatchObject({ resourceCard: { kind: "kv", operation: "write", title: "goal" } });
    const memory = await connect("workflow-memory_global_memory", true);
    expect((await memory.listTools()).tools[0]!._meta).toBeUndefined();
    await expect(memory.listResources()).rejects.toThrow();
  }, 60_000);
});
