// MCP-19: durable input round trips on the 2026-07-28 revision. A run that waits for a person
// answers the revision's input-required result (SEP-2322) with a signed requestState; the client's
// retry with inputResponses continues the same durable run on whichever host receives it. Two
// real `mcp --http` hosts on one data dir, behind a round-robin proxy written here (every request
// goes to the other host), and raw HTTP as the client (what a client library would send, plus
// what it never would: a tampered state).
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { readFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { cleanup, REPO, tempDir, writeProject } from "../cli/helpers.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { effectLines } from "./task-helpers.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectHttp, rawPost, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { addTenantKey } from "../fixtures/tenant-credentials.js";

jest.setTimeout(180_000);

const MODERN = "2026-07-28";
const FIXTURE = join(REPO, "test/mcp-http/fixtures/mrtr");
const TOOL = "book_and_charge";

let tmp: string;
let project: string;
let a: HttpMcpServer;
let b: HttpMcpServer;
let proxy: Server;
let proxyUrl: URL;
const routed: string[] = [];

/** A round-robin proxy: each request goes to the next host of `hosts` (a, b, a, …). */
function startProxy(hosts: () => URL[]): Promise<URL> {
  let turn = 0;
  proxy = createServer((req, res) => {
    const target = hosts()[turn++ % 2]!;
    routed.push(target.port);
    const forward = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on("error", (error) => res.writeHead(502).end(String(error)));
    req.pipe(forward);
  });
  return new Promise((resolve) => proxy.listen(0, "127.0.0.1", () => resolve(new URL(`http://127.0.0.1:${(proxy.address() as { port: number }).port}/mcp`))));
}

type Rpc = { result?: { resultType?: string; inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>; requestState?: string; structuredContent?: Record<string, unknown>; isError?: boolean }; error?: { code: number; message: string; data?: unknown } };

let ids = 0;
/** One `tools/call` of the revision through `url` (the proxy by default), as raw JSON-RPC. */
async function call(params: Record<string, unknown>, capabilities: Record<string, object> = { elicitation: {} }, url = proxyUrl, secret?: string): Promise<Rpc> {
  const meta = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": capabilities };
  const headers = { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": String(params.name), ...(secret ? { authorization: `Bearer ${secret}` } : {}) };
  const answer = await rawPost(url, headers, { jsonrpc: "2.0", id: ++ids, method: "tools/call", params: { ...params, _meta: meta } });
  // A result is 200; the revision's errors come with their HTTP status (-32021: 400).
  expect(answer.status).toBe(JSON.parse(answer.body).error?.code === -32021 ? 400 : 200);
  return JSON.parse(answer.body) as Rpc;
}

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-mrtr-");
  project = await writeProject(join(tmp, "project"), {
    "package.json": readFileSync(join(FIXTURE, "package.json"), "utf8"),
    "workflow.mjs": `export { default } from ${JSON.stringify(pathToFileURL(bundledFixture(join(FIXTURE, "workflow.mjs"))).href)};\n`,
  });
  const data = join(tmp, "data");
  [a, b] = await Promise.all([startHttpMcp(project, ["--data-dir", data, "--workers", "1"]), startHttpMcp(project, ["--data-dir", data, "--workers", "1"])]);
  proxyUrl = await startProxy(() => [a.url, b.url]);
}, 150_000);
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await Promise.all([a?.stop(), b?.stop()]);
  await cleanup(tmp);
});

describe("MCP-19 durable input round trips on 2026-07-28", () => {
  it("MCP-19 a host SIGKILLed between the question and the answer: the other host continues the same run from the signed requestState, the charge happens once and the committed agent step is not redone", async () => {
    const file = join(tmp, "effects-kill.txt");
    const first = await call({ name: TOOL, arguments: { file } });
    expect(routed.at(-1)).toBe(a.url.port);
    expect(first.result).toMatchObject({ resultType: "input_required", inputRequests: { card: { method: "elicitation/create", params: { message: "Which card pays?" } } }, requestState: expect.any(String) });
    expect((await effectLines(file)).map((line) => line.split(" ")[0])).toEqual(["model", "reserve_seat", "model"]);
    a.child.kill("SIGKILL");
    const done = await call({ name: TOOL, arguments: { file }, inputResponses: { card: { action: "accept", content: { card: "visa" } } }, requestState: first.result!.requestState });
    expect(routed.at(-1)).toBe(b.url.port);
    expect(done.result?.isError).toBeFalsy();
    expect(done.result?.structuredContent).toMatchObject({ status: "success", output: { card: "visa", toolCalls: 1 } });
    const lines = await effectLines(file);
    expect(lines.map((line) => line.split(" ")[0])).toEqual(["model", "reserve_seat", "model", "charge"]);
    // The charge was made by host b's worker: not the one that asked.
    const [, , askedBy] = lines[0]!.split(" ");
    expect(lines[3]!.split(" ")[2]).not.toBe(askedBy);
    // The answered run is forgotten: the same state again is refused, as any unknown one.
    const again = await call({ name: TOOL, arguments: { file }, inputResponses: { card: { action: "accept", content: { card: "visa" } } }, requestState: first.result!.requestState }, undefined, b.url);
    expect(again.error).toMatchObject({ code: -32602, message: "Invalid or expired requestState" });
    expect((await effectLines(file)).filter((line) => line.startsWith("charge"))).toHaveLength(1);
  });

  it("MCP-19 a tampered requestState is refused with -32602 and continues nothing; the untouched one still does", async () => {
    const file = join(tmp, "effects-tampered.txt");
    const first = await call({ name: TOOL, arguments: { file } }, undefined, b.url);
    const state = first.result!.requestState!;
    const answer = { card: { action: "accept", content: { card: "amex" } } };
    const tampered = await call({ name: TOOL, arguments: { file }, inputResponses: answer, requestState: `${state.slice(0, -3)}AAA` }, undefined, b.url);
    expect(tampered.error).toMatchObject({ code: -32602, message: "Invalid or expired requestState" });
    expect((await effectLines(file)).filter((line) => line.startsWith("charge"))).toEqual([]);
    const done = await call({ name: TOOL, arguments: { file }, inputResponses: answer, requestState: state }, undefined, b.url);
    expect(done.result?.structuredContent).toMatchObject({ status: "success", output: { card: "amex" } });
  });

  it("MCP-19 a client that did not declare elicitation gets the revision's -32021 error naming it, not an input request", async () => {
    const file = join(tmp, "effects-capability.txt");
    const refused = await call({ name: TOOL, arguments: { file } }, { sampling: {} }, b.url);
    expect(refused.result).toBeUndefined();
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    expect((await effectLines(file)).filter((line) => line.startsWith("charge"))).toEqual([]);
  });
});

describe("MCP-19 the client's roots (context.roots.list) on both revisions", () => {
  const ROOTS = [{ uri: "file:///work/project", name: "project" }];
  // Host a was SIGKILLed above: a fresh one takes its place on the same data dir.
  beforeAll(async () => {
    if (a.child.exitCode !== null || a.child.signalCode !== null) a = await startHttpMcp(project, ["--data-dir", join(tmp, "data"), "--workers", "1"]);
  }, 120_000);

  it("MCP-19 a 2026-07-28 v2 client answers the roots/list input request with its handler, and the retry through the other host completes the run", async () => {
    const client = new ModernClient({ name: "roots-client", version: "1.0.0" }, { capabilities: { roots: {} }, versionNegotiation: { mode: { pin: MODERN } } });
    client.setRequestHandler("roots/list", async () => ({ roots: ROOTS }));
    await client.connect(new ModernTransport(proxyUrl));
    try {
      const before = routed.length;
      const result = await client.callTool({ name: "list_roots", arguments: {} }, { timeout: 60_000 });
      expect(result.structuredContent).toMatchObject({ status: "success", output: { roots: ROOTS } });
      // The call and its retry went to different hosts.
      expect(new Set(routed.slice(before)).size).toBe(2);
    } finally {
      await client.close();
    }
  });

  it("MCP-19 MCP-18 a 2025-11-25 client is asked roots/list as a server-to-client request on the call's stream", async () => {
    const client = await connectHttp(b.url, { capabilities: { roots: {} } });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: ROOTS }));
    try {
      const result = await client.callTool({ name: "list_roots", arguments: {} }, undefined, { timeout: 60_000 });
      expect(result.structuredContent).toMatchObject({ status: "success", output: { roots: ROOTS } });
    } finally {
      await client.close();
    }
  });
});

describe("MCP-19 TEN-3 a requestState belongs to the tenant it was given to", () => {
  let keyed: HttpMcpServer;
  let secrets: { acme: string; globex: string };
  beforeAll(async () => {
    const store = join(tmp, "keys");
    secrets = { acme: await addTenantKey(["--store", store], "acme"), globex: await addTenantKey(["--store", store], "globex") };
    keyed = await startHttpMcp(project, ["--keys", "--store", store, "--data-dir", join(tmp, "data-keyed"), "--workers", "1"]);
  }, 120_000);
  afterAll(async () => {
    await keyed?.stop();
  });

  it("MCP-19 TEN-3 another tenant's state is refused exactly like the state of a run that is gone (no existence leak); its own tenant continues the run", async () => {
    const file = join(tmp, "effects-tenants.txt");
    const answer = { card: { action: "accept", content: { card: "acme-card" } } };
    const asked = await call({ name: TOOL, arguments: { file } }, undefined, keyed.url, secrets.acme);
    const state = asked.result!.requestState!;
    const foreign = await call({ name: TOOL, arguments: { file }, inputResponses: answer, requestState: state }, undefined, keyed.url, secrets.globex);
    expect((await effectLines(file)).filter((line) => line.startsWith("charge"))).toEqual([]);
    const done = await call({ name: TOOL, arguments: { file }, inputResponses: answer, requestState: state }, undefined, keyed.url, secrets.acme);
    expect(done.result?.structuredContent).toMatchObject({ status: "success", output: { card: "acme-card" } });
    // The same state once its run is answered: the run is gone, and the refusal is the same.
    const gone = await call({ name: TOOL, arguments: { file }, inputResponses: answer, requestState: state }, undefined, keyed.url, secrets.acme);
    expect(foreign.error).toMatchObject({ code: -32602, message: "Invalid or expired requestState" });
    expect(gone.error).toEqual(foreign.error);
    expect((await effectLines(file)).filter((line) => line.startsWith("charge"))).toHaveLength(1);
  });
});
