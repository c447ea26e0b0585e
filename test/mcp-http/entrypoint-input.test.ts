// MCP-3: an entrypoint whose input is a JSON Schema 2020-12 document (`inputSchema`) — published
// unchanged, every call's arguments checked against it where every entrypoint's are (the
// runner's prepare: MCP over HTTP and stdio, `steamharness run`), a bad schema a load error
// naming the entrypoint. MCP-7: `outputText` puts a string output first in the result's content,
// the JSON result still after it and in structuredContent; without it the JSON is the only text.
// Real `steamharness mcp` processes and real clients: the SDK's v2 client (2026-07-28 over HTTP,
// and over stdio) and its v1 client (2025-11-25 over HTTP).
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CLI_SOURCE, cleanEnv, cleanup, REPO, rejection, runCli, tempDir, writeProject } from "../cli/helpers.js";
import { callAsTask, taskResult } from "./task-helpers.js";
import { toToolResult } from "../../src/adapters/driving/mcp/workflow-result.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(180_000);

const FIXTURE = join(REPO, "test/mcp-http/fixtures/conformance");
const TOOL = "json_schema_2020_12_tool";
const { default: definition } = (await import(join(FIXTURE, "workflow.mjs"))) as { default: { entrypoints: Record<string, { inputSchema?: unknown }> } };
const DECLARED = definition.entrypoints[TOOL]!.inputSchema;

let tmp: string;
let server: HttpMcpServer;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-input-schema-");
  server = await startHttpMcp(FIXTURE, ["--data-dir", join(tmp, "data"), "--workers", "1"]);
}, 120_000);
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await server?.stop();
  await cleanup(tmp);
});

interface ToolClient {
  listTools(): Promise<{ tools: Array<{ name: string; inputSchema: unknown }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

/** The three clients: v2 on 2026-07-28 over HTTP, v1 on 2025-11-25 over HTTP, v2 over stdio. */
async function clients(): Promise<Array<[string, ToolClient]>> {
  const modern = new Client({ name: "modern-client", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await modern.connect(new StreamableHTTPClientTransport(server.url));
  const legacy = await connectHttp(server.url);
  const stdio = new Client({ name: "stdio-client", version: "1.0.0" });
  await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [...CLI_SOURCE, "mcp", FIXTURE, "--data-dir", join(tmp, "stdio-data")], env: cleanEnv(), cwd: REPO, stderr: "ignore" }));
  closers.push(() => modern.close(), () => legacy.close(), () => stdio.close());
  return [
    ["v2 client, 2026-07-28 over HTTP", modern as unknown as ToolClient],
    ["v1 client, 2025-11-25 over HTTP", legacy as unknown as ToolClient],
    ["v2 client over stdio", stdio as unknown as ToolClient],
  ];
}

let connected: Promise<Array<[string, ToolClient]>> | undefined;
const each = () => (connected ??= clients());

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };

describe("MCP-3 an entrypoint's input as a JSON Schema 2020-12 document", () => {
  it("MCP-3 MCP-18 tools/list publishes the declared schema unchanged ($schema, $defs with $anchor, $ref, allOf/anyOf, if/then/else, additionalProperties) to every client", async () => {
    for (const [name, client] of await each()) {
      const tool = (await client.listTools()).tools.find((listed) => listed.name === TOOL);
      expect({ name, inputSchema: tool?.inputSchema }).toEqual({ name, inputSchema: DECLARED });
    }
  });

  it("MCP-3 a call that fits runs with its arguments as the run's params; calls that do not are refused naming the failing keyword and path, and nothing runs", async () => {
    for (const [name, client] of await each()) {
      const ok = (await client.callTool({ name: TOOL, arguments: { name: "Ada", address: { city: "Oslo" }, contactMethod: "phone", phone: "555" } })) as Result;
      expect({ name, structured: ok.structuredContent }).toMatchObject({ name, structured: { status: "success", output: "Contact Ada in Oslo by phone at 555" } });
      // if/then: phone chosen but no phone given.
      expect(rejection(await client.callTool({ name: TOOL, arguments: { contactMethod: "phone", email: "a@x.test" } }))).toContain('arguments: Instance does not have required property "phone". (required at #/then/required)');
      // $ref into $defs: a wrong type deep inside.
      expect(rejection(await client.callTool({ name: TOOL, arguments: { email: "a@x.test", address: { city: 5 } } }))).toContain("arguments.address.city: Instance type \"number\" is invalid. Expected \"string\". (type at #/properties/address/$ref/properties/city/type)");
      // additionalProperties: false, and allOf/anyOf: neither phone nor email.
      expect(rejection(await client.callTool({ name: TOOL, arguments: { email: "a@x.test", extra: 1 } }))).toContain('Property "extra" does not match additional properties schema. (additionalProperties at #/additionalProperties)');
      expect(rejection(await client.callTool({ name: TOOL, arguments: { name: "Ada" } }))).toContain("(anyOf at #/allOf/0/anyOf)");
    }
  });

  it("MCP-3 MCP-13 a task-augmented call (2025-11-25) whose arguments do not fit is JSON-RPC InvalidParams (-32602) with the validator's message; one that fits runs as a task", async () => {
    const legacy = await connectHttp(server.url);
    closers.push(() => legacy.close());
    await expect(callAsTask(legacy, TOOL, { contactMethod: "phone", email: "a@x.test" })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('arguments: Instance does not have required property "phone". (required at #/then/required)') });
    const task = await callAsTask(legacy, TOOL, { email: "a@x.test" });
    expect((await taskResult(legacy, task.taskId)).structuredContent).toMatchObject({ status: "success", output: "Contact someone by email at a@x.test" });
    // MCP-7: a task's result is built as a call's: greet's greeting leads there too.
    const greeting = await callAsTask(legacy, "greet", { name: "task" });
    expect((await taskResult(legacy, greeting.taskId)).content[0]).toEqual({ type: "text", text: "Hello, task!" });
  });

  it("MCP-3 `steamharness run` checks the same way: bad arguments exit 2 with the typed input_validation error, good ones run", async () => {
    const bad = await runCli(["run", FIXTURE, TOOL, "--params", JSON.stringify({ email: 7 }), "--json", "--data-dir", join(tmp, "cli-data")]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ runId: null, status: "rejected", error: { code: "input_validation", message: expect.stringContaining('arguments.email: Instance type "number" is invalid. Expected "string". (type at #/properties/email/type)') } });
    const good = await runCli(["run", FIXTURE, TOOL, "--params", JSON.stringify({ email: "a@x.test" }), "--json", "--data-dir", join(tmp, "cli-data")]);
    expect({ code: good.code, report: JSON.parse(good.stdout) }).toMatchObject({ code: 0, report: { status: "success", result: { data: { output: "Contact someone by email at a@x.test" } } } });
  });

  it("MCP-3 a schema the host cannot take is a load error naming the entrypoint (params beside it, a foreign $ref, a $ref that does not resolve, another dialect, not an object schema)", async () => {
    const cases: Array<[string, string, RegExp]> = [
      ["both", `params: [{ name: "a", type: "string" }], inputSchema: { type: "object" }`, /entrypoint "tool": declares both params and inputSchema/],
      ["foreign", `inputSchema: { type: "object", properties: { a: { $ref: "https://example.test/a.json" } } }`, /entrypoint "tool": inputSchema \$ref "https:\/\/example.test\/a.json" is not in this document/],
      ["dangling", `inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } }`, /entrypoint "tool" inputSchema: \$ref "#\/\$defs\/missing" does not resolve within the schema/],
      ["draft7", `inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object" }`, /entrypoint "tool": inputSchema \$schema must be "https:\/\/json-schema.org\/draft\/2020-12\/schema" or absent/],
      ["array", `inputSchema: { type: "array" }`, /entrypoint "tool": inputSchema must declare type: "object"/],
    ];
    for (const [name, declaration, message] of cases) {
      const dir = await writeProject(join(tmp, `bad-${name}`), {
        "package.json": JSON.stringify({ type: "module", id: "6c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", projectType: "workflow", main: "workflow.mjs" }),
        "workflow.mjs": `export default { entrypoints: { tool: { ${declaration}, run: () => "ran" } } };\n`,
      });
      const result = await runCli(["structure", dir, "--json"]);
      expect({ name, code: result.code, stderr: result.stderr }).toEqual({ name, code: 2, stderr: expect.stringMatching(message) });
    }
  });
});

describe("MCP-7 outputText: a string output first in the result's content", () => {
  it("MCP-7 greet (outputText) answers the greeting as content[0], then the JSON result, which is the structuredContent — on both revisions and over stdio", async () => {
    for (const [name, client] of await each()) {
      const result = (await client.callTool({ name: "greet", arguments: { name: "sep-2243" } })) as Result;
      expect({ name, content: result.content, isError: result.isError ?? false }).toEqual({ name, content: [{ type: "text", text: "Hello, sep-2243!" }, { type: "text", text: JSON.stringify(result.structuredContent) }], isError: false });
      expect(result.structuredContent).toMatchObject({ status: "success", entrypointId: "greet", output: "Hello, sep-2243!" });
    }
  });

  it("MCP-7 by default (no outputText) the JSON result stays the only text block, equal to structuredContent, even for a string output", async () => {
    for (const [name, client] of await each()) {
      const result = (await client.callTool({ name: "test_simple_text", arguments: {} })) as Result;
      expect({ name, content: result.content }).toEqual({ name, content: [{ type: "text", text: JSON.stringify(result.structuredContent) }] });
      expect(result.structuredContent).toMatchObject({ status: "success", output: "This is a simple text response for testing." });
    }
  });

  it("MCP-7 with outputText, an output that is not a string, and a run that did not succeed, are answered as without it", () => {
    const entrypoint = { id: "greet", title: "greet", description: "", params: [], outputText: true as const };
    const report = (status: "success" | "failed", output: unknown) => ({ runId: "run-1", projectId: "p", entrypointId: "greet", status, result: { data: { errCode: status === "success" ? 0 : -1, errMessage: "", output } }, ...(status === "failed" ? { error: { code: "failed", message: "boom" } } : {}) }) as never;
    const object = toToolResult(report("success", { greeting: "Hello" }), entrypoint);
    expect(object.content).toEqual([{ type: "text", text: JSON.stringify(object.structuredContent) }]);
    const failed = toToolResult(report("failed", "Hello"), entrypoint);
    expect({ isError: failed.isError, content: failed.content }).toEqual({ isError: true, content: [{ type: "text", text: JSON.stringify(failed.structuredContent) }] });
  });
});
