// MCP-6: the host's side of a run's sampling request (workflow-sampling.ts) against the SDK's
// real Client and Server, linked in memory: the timeout, an error answer's code, and the
// withdrawal when the run abandons the request. MCP-16: the server is the SDK's v2 line, the
// client the v1 line, an independent implementation of the 2025-11-25 revision.
import { afterEach, describe, expect, it } from "@jest/globals";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/server";
import { CreateMessageRequestSchema, ErrorCode, McpError, type ClientCapabilities, type CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import { createSamplingHandler } from "../../src/adapters/driving/mcp/workflow-sampling.js";
import type { WorkflowSamplingRequest } from "../../src/domain/workflow/sampling.js";

const REQUEST: WorkflowSamplingRequest = { messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens: 10 };
const open: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** A server linked to a client; `received` lists the methods of requests that reached the client without a handler. */
async function linked(capabilities: ClientCapabilities, answer?: (signal: AbortSignal) => Promise<CreateMessageResult>, received: string[] = []): Promise<Server> {
  const server = new Server({ name: "sampling-test", version: "1.0.0" }, { capabilities: {} });
  const client = new Client({ name: "sampling-client", version: "1.0.0" }, { capabilities });
  if (answer) client.setRequestHandler(CreateMessageRequestSchema, (_request, extra) => answer(extra.signal));
  client.fallbackRequestHandler = async (request) => {
    received.push(request.method);
    throw new McpError(ErrorCode.MethodNotFound, "not handled");
  };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide as never), client.connect(clientSide)]);
  open.push(() => client.close());
  return server;
}

describe("MCP-6 MCP-16 the host asks the calling client to sample", () => {
  it("MCP-6 no answer within the timeout is a `timeout` error for the run", async () => {
    const server = await linked({ sampling: {} }, () => new Promise(() => undefined));
    const ask = createSamplingHandler(server, { signal: new AbortController().signal, timeoutMs: 100 });
    await expect(ask(REQUEST, new AbortController().signal)).rejects.toMatchObject({ code: "timeout", data: { timeoutMs: 100 } });
  });

  it("MCP-6 an error answer is sampling_failed carrying the client's JSON-RPC code", async () => {
    const server = await linked({ sampling: {} }, async () => {
      throw new McpError(-1, "User rejected sampling request");
    });
    const ask = createSamplingHandler(server, { signal: new AbortController().signal });
    await expect(ask(REQUEST, new AbortController().signal)).rejects.toMatchObject({ code: "sampling_failed", message: expect.stringContaining("User rejected sampling request"), data: { mcpCode: -1 } });
  });

  it("MCP-6 the run abandoning its request (its signal) is `cancelled`, and the client's handler is aborted", async () => {
    let clientSignal: AbortSignal | undefined;
    const server = await linked({ sampling: {} }, (signal) => {
      clientSignal = signal;
      return new Promise(() => undefined);
    });
    // A request first, so the sampling request's id is not 0 (SDK 1.32 clients ignore a cancel of id 0).
    await server.ping();
    const run = new AbortController();
    const asked = createSamplingHandler(server, { signal: new AbortController().signal })(REQUEST, run.signal);
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => clientSignal && (clearInterval(poll), resolve()), 5);
    });
    run.abort();
    await expect(asked).rejects.toMatchObject({ code: "cancelled" });
    await new Promise<void>((resolve) => (clientSignal!.aborted ? resolve() : clientSignal!.addEventListener("abort", () => resolve(), { once: true })));
    expect(clientSignal!.aborted).toBe(true);
  });

  it("MCP-6 a client without the sampling capability is never sent the request", async () => {
    const received: string[] = [];
    const server = await linked({}, undefined, received);
    const ask = createSamplingHandler(server, { signal: new AbortController().signal });
    await expect(ask(REQUEST, new AbortController().signal)).rejects.toMatchObject({ code: "sampling_unavailable" });
    await server.ping();
    expect(received).toEqual([]);
  });
});
