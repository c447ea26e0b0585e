// MCP-20: the 2026-07-28 tasks extension on two real `mcp --http` hosts sharing one task store,
// behind a round-robin proxy written here (each request goes to the host the previous one did not):
// a task is created, read, answered and cancelled across hosts, and a `subscriptions/listen`
// stream held on one host hears the changes the other host makes (the store is the source of
// truth). Raw HTTP with the revision's envelope: what any 2026-07-28 client sends. Once on one
// SQLite file (two processes, one data dir), once on PostgreSQL (nothing else shared).
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { cleanEnv, cleanup, REPO, tempDir } from "../cli/helpers.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, resultFromTaskOutcome, toolDeclarationFromMcpTool, type JsonRpcResponse } from "@modelcontextprotocol/ext-tasks/client";
import { describePostgres } from "../fixtures/postgres.js";
import { startHttpMcp, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(120_000);

const PROJECT = join(REPO, "test/mcp-http/fixtures/conformance");
const MODERN = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const NAMED = new Set(["tools/call", "tasks/get", "tasks/update", "tasks/cancel"]);
/** ARCH-12: the poll interval the hosts suggest (the ext-tasks client waits it between polls; 1 s by default). */
const POLL_MS = 50;
/** serve-workflow-http's TASK_POLL_MS_ENV (named here: importing that module costs this file its load). */
const TASK_POLL_MS_ENV = "STEAMHARNESS_MCP_TASK_POLL_MS";

type Json = Record<string, any>;
let ids = 0;

/** One 2026-07-28 request (the envelope in `_meta`, the standard headers), answered as JSON or SSE. */
function post(url: URL, method: string, params: Json, options: { extension?: boolean; elicitation?: boolean; signal?: AbortSignal; raw?: boolean } = {}): Promise<Response> {
  const capabilities = { ...(options.extension === false ? {} : { extensions: { [TASKS]: {} } }), ...(options.elicitation ? { elicitation: { form: {} } } : {}) };
  const envelope = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "tasks-test", version: "1" }, "io.modelcontextprotocol/clientCapabilities": capabilities };
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": method };
  const name = params.name ?? params.taskId;
  if (NAMED.has(method) && typeof name === "string") headers["mcp-name"] = name;
  return fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: ++ids, method, params: options.raw ? params : { ...params, _meta: envelope } }), ...(options.signal ? { signal: options.signal } : {}) });
}

/** The JSON-RPC answer of a request (a JSON body, or the last message of an SSE body). */
async function call(url: URL, method: string, params: Json, options: { extension?: boolean; elicitation?: boolean } = {}): Promise<Json> {
  return answerOf(await post(url, method, params, options));
}

async function answerOf(response: Response): Promise<Json> {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const messages = text.split("\n").filter((line) => line.startsWith("data:")).map((line) => JSON.parse(line.slice(5)) as Json);
    return messages.at(-1)!;
  }
  return JSON.parse(text) as Json;
}

async function until(url: URL, taskId: string, done: (task: Json) => boolean): Promise<Json> {
  for (let i = 0; i < 300; i++) {
    const { result } = await call(url, "tasks/get", { taskId });
    if (done(result)) return result;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${taskId} never reached the awaited state`);
}

/** A listen stream's messages as they come, with a way to wait for one. */
function listen(url: URL, taskIds: string[]) {
  const controller = new AbortController();
  const messages: Json[] = [];
  const waiters: (() => void)[] = [];
  const reading = (async () => {
    const response = await post(url, "subscriptions/listen", { notifications: { taskIds } }, { signal: controller.signal });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const data = buffer.slice(0, end).split("\n").find((line) => line.startsWith("data:"));
        buffer = buffer.slice(end + 2);
        if (data) messages.push(JSON.parse(data.slice(5)) as Json);
        for (const wake of waiters.splice(0)) wake();
      }
    }
  })().catch(() => undefined);
  return {
    messages,
    async next(match: (message: Json) => boolean): Promise<Json> {
      for (;;) {
        const found = messages.find(match);
        if (found) return found;
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no matching notification; got ${JSON.stringify(messages.map((m) => m.params?.status ?? m.method))}`)), 30_000);
          waiters.push(() => (clearTimeout(timer), resolve()));
        });
      }
    },
    async close() {
      controller.abort();
      await reading;
    },
  };
}

const taskStatus = (taskId: string, status: string) => (message: Json) => message.method === "notifications/tasks" && message.params?.taskId === taskId && message.params?.status === status;

/** The two hosts (each started with its own arguments) and the proxy in front of them. */
function hostsBehindProxy(argsOf: (tmp: string) => [string[], string[]]) {
  const hosts = { a: undefined as unknown as HttpMcpServer, b: undefined as unknown as HttpMcpServer, proxyUrl: undefined as unknown as URL, hits: [] as string[] };
  let tmp: string;
  let proxy: Server;
  beforeAll(async () => {
    tmp = await tempDir("sh-mcp-tasks-ext-");
    const [argsA, argsB] = argsOf(tmp);
    [hosts.a, hosts.b] = await Promise.all([argsA, argsB].map((args) => startHttpMcp(PROJECT, args, { env: cleanEnv({ [TASK_POLL_MS_ENV]: String(POLL_MS) }) })));
    let turn = 0;
    proxy = createServer((req, res) => {
      const target = turn++ % 2 === 0 ? hosts.a.url : hosts.b.url;
      hosts.hits.push(target.port);
      const upstream = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    hosts.proxyUrl = new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}${hosts.a.url.pathname}`);
  }, 120_000);
  afterAll(async () => {
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await Promise.all([hosts.a?.stop(), hosts.b?.stop()]);
    await cleanup(tmp);
  });
  return hosts;
}

function tasksAcrossHosts(hosts: ReturnType<typeof hostsBehindProxy>) {
  it("MCP-20 a task created on one host is read, answered and finished through the round-robin proxy, and a listener on the other host hears every status", async () => {
    const created = (await call(hosts.a.url, "tools/call", { name: "confirm_delete", arguments: { filename: "report.txt" } })).result;
    expect(created).toMatchObject({ resultType: "task", status: "working", ttlMs: expect.any(Number), pollIntervalMs: POLL_MS });
    expect(created).not.toHaveProperty("task");
    const taskId = created.taskId as string;
    // Held on host b; every change below is made on host a or through the proxy.
    const stream = listen(hosts.b.url, [taskId]);
    try {
      const ack = await stream.next((message) => message.method === "notifications/subscriptions/acknowledged");
      expect(ack.params.notifications).toEqual({ taskIds: [taskId] });
      const paused = await until(hosts.proxyUrl, taskId, (task) => task.status === "input_required");
      const [key] = Object.keys(paused.inputRequests);
      expect(paused.inputRequests[key!]).toMatchObject({ method: "elicitation/create", params: { mode: "form", message: "Delete report.txt?" } });
      expect((await stream.next(taskStatus(taskId, "input_required"))).params.inputRequests).toHaveProperty(key!);
      // The answer goes to host a: the run goes on there, on the same run id.
      const ack2 = (await call(hosts.a.url, "tasks/update", { taskId, inputResponses: { [key!]: { action: "accept", content: { confirm: true } } } })).result;
      expect(ack2).toEqual({ resultType: "complete", _meta: expect.any(Object) });
      const done = await until(hosts.proxyUrl, taskId, (task) => task.status === "completed");
      expect(done.result.structuredContent).toMatchObject({ runId: taskId, status: "success", output: "Deleted report.txt" });
      const heard = await stream.next(taskStatus(taskId, "completed"));
      expect(heard.params.result.structuredContent).toMatchObject({ output: "Deleted report.txt" });
      expect(heard.params._meta["io.modelcontextprotocol/subscriptionId"]).toEqual(expect.anything());
    } finally {
      await stream.close();
    }
    expect(new Set(hosts.hits).size).toBe(2);
  });

  it("MCP-19 MCP-20 a task whose run asks two questions together surfaces both in one round, waits after a partial answer on the other host, and continues when both are answered", async () => {
    const created = (await call(hosts.a.url, "tools/call", { name: "multi_input", arguments: {} })).result;
    const taskId = created.taskId as string;
    const paused = await until(hosts.proxyUrl, taskId, (task) => task.status === "input_required");
    // Both questions of the run's Promise.all are open at once, in the first round.
    expect(Object.values(paused.inputRequests)).toEqual([
      expect.objectContaining({ method: "elicitation/create", params: expect.objectContaining({ message: "First?" }) }),
      expect.objectContaining({ method: "elicitation/create", params: expect.objectContaining({ message: "Second?" }) }),
    ]);
    const [first, second] = Object.keys(paused.inputRequests);
    // A partial answer, on host b: acked, the task keeps waiting for the other question alone.
    expect((await call(hosts.b.url, "tasks/update", { taskId, inputResponses: { [first!]: { action: "accept", content: { name: "one" } } } })).result.resultType).toBe("complete");
    for (const url of [hosts.a.url, hosts.b.url]) {
      const waiting = (await call(url, "tasks/get", { taskId })).result;
      expect({ status: waiting.status, keys: Object.keys(waiting.inputRequests) }).toEqual({ status: "input_required", keys: [second] });
    }
    // The rest on host a: the run goes on with both answers, on the same run id.
    expect((await call(hosts.a.url, "tasks/update", { taskId, inputResponses: { [second!]: { action: "accept", content: { name: "two" } } } })).result.resultType).toBe("complete");
    const done = await until(hosts.proxyUrl, taskId, (task) => task.status === "completed");
    expect(done.result.structuredContent).toMatchObject({ runId: taskId, status: "success", output: "Got one and two" });
  });

  it("MCP-19 MCP-20 an entrypoint that asks before its task answers an input round first (no task), and the retry with the answer becomes the task that uses it", async () => {
    const round = (await call(hosts.a.url, "tools/call", { name: "test_tool_with_task", arguments: {} }, { elicitation: true })).result;
    expect(round).toMatchObject({ resultType: "input_required", inputRequests: { user_name: { method: "elicitation/create" } }, requestState: expect.any(String) });
    expect(round).not.toHaveProperty("taskId");
    const created = (await call(hosts.a.url, "tools/call", { name: "test_tool_with_task", arguments: {}, inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } }, requestState: round.requestState }, { elicitation: true })).result;
    expect(created).toMatchObject({ resultType: "task", taskId: expect.any(String), status: "working" });
    expect(created).not.toHaveProperty("requestState");
    const done = await until(hosts.proxyUrl, created.taskId, (task) => task.status === "completed");
    expect(done.result.structuredContent).toMatchObject({ runId: created.taskId, status: "success", output: "Hello, Alice! (from the task)" });
    // The state named a run the task now holds: replaying it starts nothing twice.
    const replay = await call(hosts.a.url, "tools/call", { name: "test_tool_with_task", arguments: {}, inputResponses: { user_name: { action: "accept", content: { name: "Eve" } } }, requestState: round.requestState }, { elicitation: true });
    expect(replay.error?.code).toBe(-32602);
  });

  it("MCP-20 a task cancelled through the proxy ends on the host that runs it, and the listener on the other host hears the cancel", async () => {
    const created = (await call(hosts.a.url, "tools/call", { name: "slow_compute", arguments: { seconds: 60, label: "long" } })).result;
    const taskId = created.taskId as string;
    const stream = listen(hosts.b.url, [taskId]);
    try {
      await stream.next(taskStatus(taskId, "working"));
      // Both hosts answer for it at once (the row is committed before the CreateTaskResult).
      for (let i = 0; i < 2; i++) expect((await call(hosts.proxyUrl, "tasks/get", { taskId })).result).toMatchObject({ taskId, status: "working" });
      const cancel = (await call(hosts.b.url, "tasks/cancel", { taskId })).result;
      expect(cancel).not.toHaveProperty("status");
      expect(cancel.resultType).toBe("complete");
      await stream.next(taskStatus(taskId, "cancelled"));
      expect((await call(hosts.proxyUrl, "tasks/get", { taskId })).result).toMatchObject({ status: "cancelled" });
      // Cancelling a final task is the same empty ack; an unknown one is -32602.
      expect((await call(hosts.proxyUrl, "tasks/cancel", { taskId })).result.resultType).toBe("complete");
      expect((await call(hosts.proxyUrl, "tasks/cancel", { taskId: "run-unknown" })).error.code).toBe(-32602);
    } finally {
      await stream.close();
    }
  });

  it("MCP-20 the SDK team's ext-tasks client (an independent requester) runs a task that asks a question, every request through the round-robin proxy", async () => {
    const capabilities = { elicitation: { form: {} }, extensions: { [TASKS]: {} } };
    const clientInfo = { name: "ext-tasks-client", version: "1.0.0" };
    const client = new Client(clientInfo, { capabilities, versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new StreamableHTTPClientTransport(hosts.proxyUrl));
    // The client frames each request (its _meta envelope); this sends it as it is, with the standard headers.
    const rawDispatch = async (request: any): Promise<JsonRpcResponse> => {
      const response = await post(hosts.proxyUrl, request.method, request.params ?? {}, { raw: true });
      const message = await answerOf(response);
      return message.error ? { kind: "error", error: message.error } : { kind: "result", result: message.result };
    };
    const asked: unknown[] = [];
    // The tool declarations (execution.taskSupport) from a tools/list through the proxy.
    const declared = new Map(((await call(hosts.proxyUrl, "tools/list", {})).result.tools as Json[]).map((tool) => [tool.name as string, toolDeclarationFromMcpTool(tool as never)]));
    const session = createTaskSessionFromClient(client, {
      endpointId: "tasks-extension-test",
      tools: { currentTool: (name: string) => declared.get(name) as never },
      rawDispatch,
      v2RequestFraming: { protocolVersion: MODERN, clientInfo, clientCapabilities: capabilities },
      onInputRequest: async (request: any) => {
        asked.push(request);
        return { action: "accept", content: { confirm: true } } as never;
      },
    });
    try {
      const execution = await session.callTool("confirm_delete", { filename: "ext.txt" });
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe("completed");
      expect((resultFromTaskOutcome(outcome) as Json).structuredContent).toMatchObject({ status: "success", output: "Deleted ext.txt" });
      expect(asked).toEqual([expect.objectContaining({ kind: "elicitation", params: expect.objectContaining({ message: "Delete ext.txt?" }) })]);
    } finally {
      await session.close();
      await client.close();
    }
  });

  it("MCP-20 a request without the extension gets -32021 on tasks/* and on a tool that requires a task, and a plain result from one that may run as a task", async () => {
    expect((await call(hosts.proxyUrl, "tasks/get", { taskId: "run-x" }, { extension: false })).error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
    expect((await call(hosts.proxyUrl, "tools/call", { name: "failing_job", arguments: {} }, { extension: false })).error.code).toBe(-32021);
    const plain = (await call(hosts.proxyUrl, "tools/call", { name: "slow_compute", arguments: { seconds: 0, label: "now" } }, { extension: false })).result;
    expect(plain).toMatchObject({ resultType: "complete", structuredContent: { status: "success", output: "Computed now after 0s" } });
    expect(plain).not.toHaveProperty("taskId");
  });
}

describe("MCP-20 the tasks extension across two hosts on one SQLite store", () => {
  // Two processes on one data dir: the task store is its SQLite file.
  tasksAcrossHosts(hostsBehindProxy((tmp) => [["--data-dir", join(tmp, "data"), "--workers", "2"], ["--data-dir", join(tmp, "data"), "--workers", "2"]]));
});

describePostgres("MCP-20 the tasks extension across two hosts on one PostgreSQL store", (database) => {
  // Nothing shared but PostgreSQL: each host has its own data dir.
  const shared = ["--postgres", database.url, "--postgres-schema", database.schema, "--workers", "2"];
  tasksAcrossHosts(hostsBehindProxy((tmp) => [["--data-dir", join(tmp, "data-a"), ...shared], ["--data-dir", join(tmp, "data-b"), ...shared]]));
});
