// MCP-15 / WF-1: a workflow project's prompts, resources, resource templates and completions,
// served by a real `steamharness mcp` over stdio AND over Streamable HTTP to the SDK's real
// client: substitution, missing arguments, images and resources read from project files,
// files that point out of the project refused as typed errors (the server keeps serving),
// subscriptions told of file changes with no watcher left behind, and completion from static
// options. A project that declares none of it declares no new capability.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { alive, cleanup, KITCHEN, startMcp, tempDir, waitFor, writeProject } from "../cli/helpers.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(120_000);

const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");
const CITIES = Array.from({ length: 150 }, (_, index) => `city-${String(index).padStart(3, "0")}`);

const WORKFLOW = `export default {
  entrypoints: { ping: { run: () => "pong" } },
  prompts: {
    greet: {
      title: "Greeting",
      description: "Greets someone",
      arguments: [
        { name: "name", description: "Who", required: true },
        { name: "tone", options: ["friendly", "formal", "frosty"] },
        { name: "city", options: ${JSON.stringify(CITIES)} },
      ],
      messages: [
        { role: "user", content: { type: "text", text: "Greet {name} in a {tone} tone; keep {braces} and {\\"json\\": 1}." } },
        { role: "assistant", content: { type: "text", text: "Hello {name}!" } },
      ],
    },
    look: { messages: [{ role: "user", content: { type: "image", file: "assets/pixel.png" } }] },
    embed: {
      arguments: [{ name: "uri", required: true }],
      messages: [{ role: "user", content: { type: "resource", uri: "{uri}" } }, { role: "user", content: { type: "text", text: "Summarize it." } }],
    },
  },
  resources: [
    { uri: "docs://readme", name: "readme", title: "Read me", description: "Inline text", text: "Inline hello" },
    { uri: "docs://notes", name: "notes", file: "notes/notes.md" },
    { uri: "docs://pixel", name: "pixel", file: "assets/pixel.png" },
    { uri: "docs://inline-bytes", name: "inline-bytes", blob: "AAEC" },
    { uri: "docs://outside", name: "outside", file: "link-out.txt" },
    { uri: "docs://folder", name: "folder", file: "assets" },
    { uri: "docs://fifo", name: "fifo", file: "pipe" },
    { uri: "docs://big", name: "big", file: "big.bin" },
  ],
  resourceTemplates: [
    { uriTemplate: "docs://day/{day}/summary", name: "day", mimeType: "application/json", text: '{"day":"{day}"}', options: { day: ["monday", "tuesday", "thursday"] } },
  ],
};
`;

let tmp: string;
let project: string;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-publications-");
  project = join(tmp, "project");
  await writeProject(project, {
    "package.json": JSON.stringify({ type: "module", id: "5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d", projectType: "workflow", main: "workflow.mjs" }),
    "workflow.mjs": WORKFLOW,
    "notes/notes.md": "# Notes\nfirst version\n",
  });
  await mkdir(join(project, "assets"));
  await writeFile(join(project, "assets/pixel.png"), PIXEL);
  await writeProject(join(tmp, "outside"), { "secret.txt": "OUTSIDE-SECRET" });
  await symlink(join(tmp, "outside/secret.txt"), join(project, "link-out.txt"));
  execFileSync("mkfifo", [join(project, "pipe")]);
  await writeFile(join(project, "big.bin"), Buffer.alloc(10 * 1024 * 1024 + 1));
}, 60_000);
afterAll(async () => {
  await cleanup(tmp);
});

/** The inotify watches a process holds (Linux): each `fs.watch` of a file adds one. */
function inotifyWatches(pid: number): number {
  let watches = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target = "";
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== "anon_inode:inotify") continue;
    watches += readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8").split("\n").filter((line) => line.startsWith("inotify wd:")).length;
  }
  return watches;
}

async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }
  throw new Error("expected a JSON-RPC error");
}

interface Served {
  client: Client;
  pid: number;
  close(): Promise<void>;
}

const transports: Record<string, (dir: string, data: string) => Promise<Served>> = {
  async stdio(dir, data) {
    const session = await startMcp(dir, ["--data-dir", data]);
    return { client: session.client, pid: session.transport.pid!, close: () => session.close() };
  },
  async http(dir, data) {
    const server: HttpMcpServer = await startHttpMcp(dir, ["--data-dir", data, "--workers", "1"]);
    const client = await connectHttp(server.url);
    return {
      client,
      pid: server.child.pid!,
      async close() {
        await client.close().catch(() => undefined);
        await server.stop();
      },
    };
  },
};

describe.each(["stdio", "http"])("MCP-15 prompts, resources and completions over %s", (kind) => {
  let served: Served;

  beforeAll(async () => {
    served = await transports[kind]!(project, join(tmp, `data-${kind}`));
  }, 90_000);
  afterAll(async () => {
    await served?.close();
  });

  it(`MCP-15 declares prompts, resources with subscribe, and completions (${kind})`, () => {
    expect(served.client.getServerCapabilities()).toMatchObject({ prompts: { listChanged: false }, resources: { subscribe: true, listChanged: false }, completions: {}, tools: { listChanged: false } });
  });

  it(`MCP-15 lists prompts and gets them with arguments substituted; a missing or unknown argument is InvalidParams (${kind})`, async () => {
    const { prompts } = await served.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(["greet", "look", "embed"]);
    expect(prompts[0]).toEqual({
      name: "greet",
      title: "Greeting",
      description: "Greets someone",
      arguments: [{ name: "name", description: "Who", required: true }, { name: "tone" }, { name: "city" }],
    });
    const got = await served.client.getPrompt({ name: "greet", arguments: { name: "Ada", tone: "formal" } });
    expect(got).toEqual({
      description: "Greets someone",
      messages: [
        { role: "user", content: { type: "text", text: 'Greet Ada in a formal tone; keep {braces} and {"json": 1}.' } },
        { role: "assistant", content: { type: "text", text: "Hello Ada!" } },
      ],
    });
    const missing = await rpcError(served.client.getPrompt({ name: "greet", arguments: { tone: "formal" } }));
    expect(missing.code).toBe(ErrorCode.InvalidParams);
    expect(missing.message).toContain("missing required argument name");
    expect((await rpcError(served.client.getPrompt({ name: "greet", arguments: { name: "Ada", mood: "x" } }))).code).toBe(ErrorCode.InvalidParams);
    expect((await rpcError(served.client.getPrompt({ name: "nope" }))).code).toBe(ErrorCode.InvalidParams);
  });

  it(`MCP-15 a prompt embeds an image from a project file and a resource its argument names (${kind})`, async () => {
    const look = await served.client.getPrompt({ name: "look" });
    expect(look.messages).toEqual([{ role: "user", content: { type: "image", mimeType: "image/png", data: PIXEL.toString("base64") } }]);
    const embed = await served.client.getPrompt({ name: "embed", arguments: { uri: "docs://day/friday/summary" } });
    expect(embed.messages[0]).toEqual({ role: "user", content: { type: "resource", resource: { uri: "docs://day/friday/summary", mimeType: "application/json", text: '{"day":"friday"}' } } });
    const unknown = await rpcError(served.client.getPrompt({ name: "embed", arguments: { uri: "docs://nowhere" } }));
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
  });

  it(`MCP-15 lists resources and templates and reads inline text, Base64, file text, file bytes and a template (${kind})`, async () => {
    const { resources } = await served.client.listResources();
    expect(resources.slice(0, 4)).toEqual([
      { uri: "docs://readme", name: "readme", title: "Read me", description: "Inline text", mimeType: "text/plain" },
      { uri: "docs://notes", name: "notes", mimeType: "text/markdown" },
      { uri: "docs://pixel", name: "pixel", mimeType: "image/png" },
      { uri: "docs://inline-bytes", name: "inline-bytes", mimeType: "application/octet-stream" },
    ]);
    expect((await served.client.listResourceTemplates()).resourceTemplates).toEqual([{ uriTemplate: "docs://day/{day}/summary", name: "day", mimeType: "application/json" }]);
    expect((await served.client.readResource({ uri: "docs://readme" })).contents).toEqual([{ uri: "docs://readme", mimeType: "text/plain", text: "Inline hello" }]);
    expect((await served.client.readResource({ uri: "docs://inline-bytes" })).contents).toEqual([{ uri: "docs://inline-bytes", mimeType: "application/octet-stream", blob: "AAEC" }]);
    expect((await served.client.readResource({ uri: "docs://notes" })).contents[0]).toMatchObject({ mimeType: "text/markdown", text: expect.stringContaining("# Notes") });
    expect((await served.client.readResource({ uri: "docs://pixel" })).contents).toEqual([{ uri: "docs://pixel", mimeType: "image/png", blob: PIXEL.toString("base64") }]);
    // Level-1 values are percent-decoded; one spanning a "/" matches no template.
    expect((await served.client.readResource({ uri: "docs://day/mon%20day/summary" })).contents).toEqual([{ uri: "docs://day/mon%20day/summary", mimeType: "application/json", text: '{"day":"mon day"}' }]);
    // MCP-16: a miss is -32602 with `data.uri` (the 2026-07-28 rule, which the SDK's v2 line applies to every revision).
    expect(await rpcError(served.client.readResource({ uri: "docs://day/a/b/summary" }))).toMatchObject({ code: -32602, data: { uri: "docs://day/a/b/summary" } });
    expect(await rpcError(served.client.readResource({ uri: "docs://unknown" }))).toMatchObject({ code: -32602, data: { uri: "docs://unknown" } });
  });

  it(`MCP-15 a file resource whose symlink points out of the project, or that is a folder, a FIFO or over 10 MB, is a typed error and the server keeps serving (${kind})`, async () => {
    const outside = await rpcError(served.client.readResource({ uri: "docs://outside" }));
    expect(outside.code).toBe(ErrorCode.InternalError);
    expect(outside.message).toContain("outside the project folder");
    expect(outside.message).not.toContain("OUTSIDE-SECRET");
    const folder = await rpcError(served.client.readResource({ uri: "docs://folder" }));
    expect(folder.message).toContain("not a regular file");
    // A FIFO with no writer must not hang the server; a file over 10 MB is refused unread.
    expect((await rpcError(served.client.readResource({ uri: "docs://fifo" }))).message).toContain("not a regular file");
    expect((await rpcError(served.client.readResource({ uri: "docs://big" }))).message).toContain("over the 10485760-byte limit");
    expect((await rpcError(served.client.subscribeResource({ uri: "docs://outside" }))).message).toContain("outside the project folder");
    expect((await served.client.readResource({ uri: "docs://readme" })).contents).toHaveLength(1);
  });

  it(`MCP-15 completes prompt arguments and template variables from static options: prefix match, at most 100, total and hasMore (${kind})`, async () => {
    expect(await served.client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "tone", value: "fr" } })).toEqual({ completion: { values: ["friendly", "frosty"], total: 2, hasMore: false } });
    const cities = await served.client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "city", value: "city-" } });
    expect(cities.completion).toEqual({ values: CITIES.slice(0, 100), total: 150, hasMore: true });
    expect((await served.client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "A" } })).completion.values).toEqual([]);
    expect((await served.client.complete({ ref: { type: "ref/resource", uri: "docs://day/{day}/summary" }, argument: { name: "day", value: "t" } })).completion.values).toEqual(["tuesday", "thursday"]);
    expect((await rpcError(served.client.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "x", value: "" } }))).code).toBe(ErrorCode.InvalidParams);
  });

  it(`MCP-15 a subscribed file resource sends notifications/resources/updated when the file changes; unsubscribe closes its watcher (${kind})`, async () => {
    const updates: string[] = [];
    served.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    const before = inotifyWatches(served.pid);
    await served.client.subscribeResource({ uri: "docs://notes" });
    expect(inotifyWatches(served.pid)).toBe(before + 1);
    await writeFile(join(project, "notes/notes.md"), `# Notes\n${kind} edit\n`);
    await waitFor(() => updates.includes("docs://notes"), 10_000);
    expect((await served.client.readResource({ uri: "docs://notes" })).contents[0]).toMatchObject({ text: `# Notes\n${kind} edit\n` });
    // Saved the way editors do (a new file renamed over the old one), then edited in place: the
    // watcher follows the path, not the replaced inode.
    for (const save of ["rename", "in place"]) {
      updates.length = 0;
      if (save === "rename") {
        await writeFile(join(project, "notes/.notes.md.tmp"), "# Notes\nrenamed over\n");
        await rename(join(project, "notes/.notes.md.tmp"), join(project, "notes/notes.md"));
      } else await writeFile(join(project, "notes/notes.md"), "# Notes\nedited after the rename\n");
      await waitFor(() => updates.includes("docs://notes"), 10_000);
    }
    expect(inotifyWatches(served.pid)).toBe(before + 1);
    await served.client.unsubscribeResource({ uri: "docs://notes" });
    expect(inotifyWatches(served.pid)).toBe(before);
    updates.length = 0;
    await writeFile(join(project, "notes/notes.md"), "# Notes\nafter unsubscribe\n");
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(updates).toEqual([]);
  });
});

describe("MCP-15 watchers end with the connection", () => {
  it("MCP-15 over HTTP, a session that ends while subscribed leaves no watcher behind", async () => {
    const server = await startHttpMcp(project, ["--data-dir", join(tmp, "data-watch"), "--workers", "1"]);
    try {
      const client = await connectHttp(server.url);
      await client.listPrompts();
      const before = inotifyWatches(server.child.pid!);
      await client.subscribeResource({ uri: "docs://notes" });
      await client.subscribeResource({ uri: "docs://pixel" });
      expect(inotifyWatches(server.child.pid!)).toBe(before + 2);
      await (client.transport as StreamableHTTPClientTransport).terminateSession();
      await client.close();
      await waitFor(() => inotifyWatches(server.child.pid!) === before, 5_000);
    } finally {
      await server.stop();
    }
  });

  it("MCP-15 over stdio, the server process ends with the client, subscriptions and all", async () => {
    const session = await startMcp(project, ["--data-dir", join(tmp, "data-watch-stdio")]);
    const pid = session.transport.pid!;
    await session.client.subscribeResource({ uri: "docs://notes" });
    await session.close();
    await waitFor(() => !alive(pid), 10_000);
  });
});

describe("MCP-15 a project without prompts or resources", () => {
  it("MCP-15 declares no prompts, resources or completions over stdio or HTTP, and prompts/list is Method not found", async () => {
    const session = await startMcp(KITCHEN, ["--data-dir", join(tmp, "data-kitchen")]);
    try {
      expect(Object.keys(session.client.getServerCapabilities() ?? {}).sort()).toEqual(["tools"]);
      expect((await rpcError(session.client.listPrompts())).code).toBe(ErrorCode.MethodNotFound);
      expect((await rpcError(session.client.listResources())).code).toBe(ErrorCode.MethodNotFound);
    } finally {
      await session.close();
    }
    const server = await startHttpMcp(KITCHEN, ["--data-dir", join(tmp, "data-kitchen-http"), "--workers", "1"]);
    try {
      const client = await connectHttp(server.url);
      expect(Object.keys(client.getServerCapabilities() ?? {}).sort()).toEqual(["logging", "tasks", "tools"]);
      expect((await rpcError(client.complete({ ref: { type: "ref/prompt", name: "x" }, argument: { name: "y", value: "" } }))).code).toBe(ErrorCode.MethodNotFound);
      await client.close();
    } finally {
      await server.stop();
    }
  });
});


describe("MCP-15 a handshake waits a bounded time for the project's catalog", () => {
  it("MCP-15 publishedOf: the structure once loaded; undefined for a project that fails to load, or that still loads after the bound (then onLate runs)", async () => {
    const { publishedOf } = await import("../../src/adapters/driving/mcp/workflow-server.js");
    const structure = { projectId: "p", projectType: "workflow" as const, entrypoints: [], prompts: [] };
    expect(await publishedOf(Promise.resolve({ structure, tools: [] }))).toBe(structure);
    const failing = Promise.reject(new Error("does not load"));
    expect(await publishedOf(failing)).toBeUndefined();
    let late = 0;
    expect(await publishedOf(new Promise(() => undefined), { waitMs: 30, onLate: () => (late += 1) })).toBeUndefined();
    expect(late).toBe(1);
  });
});
