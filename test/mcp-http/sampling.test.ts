// MCP-6 / MCP-15: a workflow run asks the calling MCP client's model for a completion
// (`context.sampling.createMessage` → `sampling/createMessage`), over stdio and over Streamable
// HTTP, with real `steamharness mcp` processes and the SDK's real client with a sampling handler.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CancelledNotificationSchema, CreateMessageRequestSchema, type CallToolResult, type ClientCapabilities, type CreateMessageRequest, type CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import { alive, cleanup, REPO, runCli, startMcp, tempDir, waitFor } from "../cli/helpers.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { callAsTask, pollTask, taskResult } from "./task-helpers.js";

jest.setTimeout(Number(process.env.SAMPLING_TEST_TIMEOUT ?? 120_000));

const SAMPLING = join(REPO, "test/mcp-http/fixtures/sampling");
const WITH_SAMPLING: ClientCapabilities = { sampling: {} };
const ANSWER: CreateMessageResult = { role: "assistant", content: { type: "text", text: "A one-line summary." }, model: "test-model", stopReason: "endTurn" };

type SamplingParams = CreateMessageRequest["params"];
type Extra = { signal: AbortSignal; requestId: string | number };

/** A connection to the sampling fixture: the SDK client and how to close it. */
interface Connection {
  client: Client;
  close: () => Promise<void>;
}

/** How a transport connects a client; stdio starts a server process per client, HTTP shares one. */
interface Transport {
  name: string;
  start(tmp: string): Promise<void>;
  connect(capabilities: ClientCapabilities): Promise<Connection>;
  stop(): Promise<void>;
}

function stdioTransport(): Transport {
  let dataDir = "";
  return {
    name: "stdio",
    async start(tmp) {
      dataDir = join(tmp, "data");
    },
    async connect(capabilities) {
      const session = await startMcp(SAMPLING, ["--data-dir", dataDir, "--workers", "1"], { capabilities });
      return { client: session.client, close: session.close };
    },
    async stop() {},
  };
}

function httpTransport(): Transport {
  let server: HttpMcpServer | undefined;
  return {
    name: "Streamable HTTP",
    async start(tmp) {
      server = await startHttpMcp(SAMPLING, ["--data-dir", join(tmp, "data"), "--workers", "1"]);
    },
    async connect(capabilities) {
      // No standalone GET stream (the fetch answers 405 for it, as a server without one would):
      // a request the server sends reaches this client only on the stream of the call it belongs to.
      const fetchWithoutGet: typeof fetch = async (input, init) => (init?.method === "GET" ? new Response(null, { status: 405 }) : fetch(input, init));
      const client = await connectHttp(server!.url, { capabilities, transport: { fetch: fetchWithoutGet } });
      return { client, close: () => client.close() };
    },
    async stop() {
      await server?.stop();
    },
  };
}

/** Records every sampling request the client gets and answers it with `answer`. */
function onSampling(client: Client, answer: (params: SamplingParams, extra: Extra) => Promise<CreateMessageResult> | CreateMessageResult): SamplingParams[] {
  const seen: SamplingParams[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    seen.push(request.params);
    return answer(request.params, extra);
  });
  return seen;
}

/**
 * The ids of the requests the server withdrew (`notifications/cancelled`) as the client receives
 * them. Recorded here rather than through the handler's `extra.signal`: SDK 1.32's own handler
 * ignores a cancellation of request id 0, the first request a server sends on a connection.
 */
function withdrawals(client: Client): Set<string | number> {
  const ids = new Set<string | number>();
  client.setNotificationHandler(CancelledNotificationSchema, (notification) => {
    if (notification.params.requestId !== undefined) ids.add(notification.params.requestId);
  });
  return ids;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) => (await client.callTool({ name, arguments: args }, undefined, signal ? { signal } : {})) as CallToolResult;
const outputOf = (result: CallToolResult) => (result.structuredContent as { output: Record<string, unknown> }).output;
const textOf = (params: SamplingParams) => (params.messages[0]!.content as { text: string }).text;

describe.each([stdioTransport(), httpTransport()])("MCP-6 MCP-15 sampling from a workflow run over $name", (transport) => {
  let tmp: string;
  let sampler: Connection;
  let plain: Connection;
  let withdrawn: Set<string | number>;

  beforeAll(async () => {
    tmp = await tempDir("sh-mcp-sampling-");
    await transport.start(tmp);
    [sampler, plain] = await Promise.all([transport.connect(WITH_SAMPLING), transport.connect({})]);
    withdrawn = withdrawals(sampler.client);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([sampler?.close(), plain?.close()]);
    await transport.stop();
    await cleanup(tmp);
  });

  it("MCP-6 a run asks the client's model, the client answers, and the run's output holds the checked answer", async () => {
    // Extra fields of an answer (`_meta`, anything unknown) do not reach the run.
    const seen = onSampling(sampler.client, () => ({ ...ANSWER, _meta: { trace: "x" }, unknownField: 1 }) as CreateMessageResult);
    const result = await call(sampler.client, "summarize", { text: "a long text" });
    expect(result.isError).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      messages: [{ role: "user", content: { type: "text", text: "Summarize: a long text" } }],
      maxTokens: 64,
      systemPrompt: "You summarize in one line.",
      modelPreferences: { hints: [{ name: "claude" }], speedPriority: 0.8 },
      temperature: 0.2,
    });
    const output = outputOf(result);
    expect(output).toEqual({ runId: (result.structuredContent as { runId: string }).runId, role: "assistant", text: "A one-line summary.", model: "test-model", stopReason: "endTurn", keys: ["content", "model", "role", "stopReason"] });
  });

  it("MCP-6 a client without the sampling capability is never asked: the run gets sampling_unavailable, and an uncaught one is the call's error", async () => {
    const caught = await call(plain.client, "sample_or_explain");
    expect(outputOf(caught)).toMatchObject({ code: "sampling_unavailable", message: expect.stringContaining("did not declare the sampling capability") });
    const uncaught = await call(plain.client, "sample_uncaught");
    expect(uncaught.isError).toBe(true);
    expect(uncaught.structuredContent).toMatchObject({ status: "failed", error: { code: "sampling_unavailable", message: expect.stringContaining("sampling capability") } });
  });

  it("MCP-6 a malformed answer is sampling_failed for the run (checked by TypeBox), and the server keeps serving", async () => {
    // The SDK client checks what its own sampling handler returns; a fallback handler answers unchecked, as a faulty client would.
    sampler.client.removeRequestHandler("sampling/createMessage");
    sampler.client.fallbackRequestHandler = async () => ({ role: "assistant", content: { type: "text" }, model: 42 }) as never;
    try {
      const result = await call(sampler.client, "sample_or_explain");
      expect(outputOf(result)).toMatchObject({ code: "sampling_failed", message: expect.stringContaining("not a CreateMessageResult") });
    } finally {
      sampler.client.fallbackRequestHandler = undefined;
    }
    onSampling(sampler.client, () => ANSWER);
    expect(outputOf(await call(sampler.client, "sample_or_explain"))).toEqual({ sampled: ANSWER.content });
  });

  it("MCP-6 a client that refuses (an error answer) gives sampling_failed with the client's message", async () => {
    onSampling(sampler.client, () => {
      throw new Error("the user rejected the sampling request");
    });
    const result = await call(sampler.client, "sample_or_explain");
    expect(outputOf(result)).toMatchObject({ code: "sampling_failed", message: expect.stringContaining("the user rejected the sampling request") });
  });

  it("MCP-6 a request with more messages than a request may hold is input_validation and never reaches the client", async () => {
    const seen = onSampling(sampler.client, () => ANSWER);
    const result = await call(sampler.client, "sample_too_large", { messages: 65 });
    expect(outputOf(result)).toMatchObject({ code: "input_validation", field: "messages", message: expect.stringContaining("at most 64 messages") });
    expect(seen).toHaveLength(0);
  });

  it("MCP-6 a run that abandons its request with its own signal gets cancelled, and the client is told", async () => {
    const asked: (string | number)[] = [];
    onSampling(sampler.client, (_params, extra) => {
      asked.push(extra.requestId);
      return new Promise<CreateMessageResult>(() => undefined);
    });
    const result = await call(sampler.client, "sample_abandoned");
    expect(outputOf(result)).toEqual({ abandoned: true, code: "cancelled" });
    expect(asked).toHaveLength(1);
    await waitFor(() => withdrawn.has(asked[0]!));
  });

  it("MCP-6 cancelling the call mid-sampling kills the worker and withdraws the sampling request from the client", async () => {
    const controller = new AbortController();
    let pid = 0;
    const asked: (string | number)[] = [];
    onSampling(sampler.client, (params, extra) => {
      pid = Number(textOf(params).slice("pid=".length));
      asked.push(extra.requestId);
      controller.abort();
      return new Promise<CreateMessageResult>(() => undefined);
    });
    await expect(call(sampler.client, "sample_with_pid", {}, controller.signal)).rejects.toThrow();
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => !alive(pid));
    expect(asked).toHaveLength(1);
    await waitFor(() => withdrawn.has(asked[0]!));
    onSampling(sampler.client, () => ANSWER);
    expect(outputOf(await call(sampler.client, "sample_or_explain"))).toEqual({ sampled: ANSWER.content });
  });

  it("MCP-6 a worker killed mid-request ends the call as failed and leaves no sampling request open at the client", async () => {
    const asked: (string | number)[] = [];
    onSampling(sampler.client, (params, extra) => {
      asked.push(extra.requestId);
      process.kill(Number(textOf(params).slice("pid=".length)), "SIGKILL");
      return new Promise<CreateMessageResult>(() => undefined);
    });
    const result = await call(sampler.client, "sample_with_pid");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: "failed", error: { code: "worker_crashed" } });
    expect(asked).toHaveLength(1);
    await waitFor(() => withdrawn.has(asked[0]!));
  });
});

describe("MCP-6 MCP-13 sampling outside a live MCP call", () => {
  it("MCP-13 an entrypoint called as a task has no live call to ask through: its run gets sampling_unavailable and the client is never asked", async () => {
    const tmp = await tempDir("sh-task-sampling-");
    const server = await startHttpMcp(SAMPLING, ["--data-dir", join(tmp, "data"), "--workers", "1"]);
    const client = await connectHttp(server.url, { capabilities: { ...WITH_SAMPLING, tasks: {} } });
    try {
      const seen = onSampling(client, () => ANSWER);
      const task = await callAsTask(client, "sample_or_explain", {});
      expect(await pollTask(client, task.taskId, (t) => t.status !== "working")).toMatchObject({ status: "completed" });
      const result = await taskResult(client, task.taskId);
      expect(outputOf(result)).toMatchObject({ code: "sampling_unavailable", message: expect.stringContaining("not `steamharness run` or `answer`, nor an MCP task") });
      expect(seen).toHaveLength(0);
    } finally {
      await client.close();
      await server.stop();
      await cleanup(tmp);
    }
  });


  it("MCP-6 `steamharness run` has no client to ask: the run gets sampling_unavailable", async () => {
    const tmp = await tempDir("sh-run-sampling-");
    try {
      const run = await runCli(["run", SAMPLING, "sample_or_explain", "--json", "--data-dir", join(tmp, "data")]);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: "success", result: { data: { output: { code: "sampling_unavailable", message: expect.stringContaining("not `steamharness run`") } } } });
    } finally {
      await cleanup(tmp);
    }
  });
});
