// Shared setup of the capability tests: a real MemoryStorage behind a real node context, the
// native tools, and an MCP client connected to a capability server. In-process servers use the
// SDK's InMemoryTransport (the real Server and Client, linked without a pipe) where thousands of
// calls are made; test/capabilities/stdio.test.ts drives the same servers over real stdio.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createNodeContext, type NodeContextOptions } from "../../src/compose/node-context.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import type { NodeContext } from "../../src/domain/node-context.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { CAPABILITY_ADDRESSES } from "../../src/domain/capabilities/catalog.js";
import {
  createProjectCapabilityServer,
  createProjectCapabilityTools,
  type CapabilityEnv,
} from "../../src/app/capabilities/project-capabilities.js";
import type { CapabilityApprove } from "../../src/domain/capabilities/capability-spec.js";

export interface Fixture {
  storage: MemoryStorage;
  context: NodeContext;
  tools: AgentTool[];
  tool(toolId: string): AgentTool;
}

export async function fixture(options: Partial<NodeContextOptions> & { globalMemory?: boolean; approve?: CapabilityApprove; env?: CapabilityEnv } = {}): Promise<Fixture> {
  const storage = new MemoryStorage();
  const { globalMemory = true, approve, env = {}, ...contextOptions } = options;
  const context = createNodeContext({ projectId: "project-1", conversationId: "conversation-1", storage, ...contextOptions });
  const tools = await createProjectCapabilityTools({ context, globalMemory, env, ...(approve ? { approve } : {}) });
  return {
    storage,
    context,
    tools,
    tool(toolId) {
      const found = tools.find((t) => t.name === toolId);
      if (!found) throw new Error(`no tool ${toolId}`);
      return found;
    },
  };
}

/** Connects an SDK Client to the capability server of `toolId` over an in-memory transport pair. */
export async function connectInProcess(toolId: string, context: NodeContext, options: { approve?: CapabilityApprove; env?: CapabilityEnv } = {}): Promise<Client> {
  const server = await createProjectCapabilityServer(toolId, { context, env: options.env ?? {}, ...(options.approve ? { approve: options.approve } : {}) });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "capability-test", version: "0.0.0" });
  await client.connect(clientTransport);
  return client;
}

export function shortName(toolId: string): string {
  const address = CAPABILITY_ADDRESSES.find((a) => a.toolId === toolId);
  if (!address) throw new Error(`unknown ${toolId}`);
  return address.toolName;
}

/** The `{ code, field }` of a native failure. */
export async function nativeError(promise: Promise<unknown>): Promise<{ code: string; field?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (!isSteamharnessError(error)) throw error;
    return { code: error.code, message: error.message, ...(error.field === undefined ? {} : { field: error.field }) };
  }
  throw new Error("expected the call to fail");
}

/** Calls the MCP tool; resolves `{ ok, structured }`, checking the CAP-0 error shape on failure. */
export async function mcpCall(client: Client, name: string, args: unknown): Promise<{ ok: boolean; structured: any; text: string }> {
  const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
  const text = (result.content as Array<{ type: string; text: string }>)[0]?.text ?? "";
  if (result.isError) {
    const structured = result.structuredContent as any;
    if (JSON.stringify(structured) !== text) throw new Error(`error text and structuredContent differ: ${text}`);
    return { ok: false, structured, text };
  }
  return { ok: true, structured: result.structuredContent, text };
}
