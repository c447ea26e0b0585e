/**
 * Renders one capability spec as an MCP server on the SDK's low-level `Server` (CAP-1). The
 * server announces the MCP service id (`workflow-kv`) and lists one tool by its short name
 * (`kv_store`) with the spec's description and input schema — the very objects the native tool
 * publishes — so `<server>_<tool>` is the native tool id with byte-identical metadata.
 *
 * Every call goes through the same `runCapability` as the native tool (validate, approve,
 * execute). Its failures, invalid arguments included, never escape as protocol errors: they become
 * a result with `isError: true` whose `structuredContent` and text are
 * `{ "error": { code, message, field? } }` (CAP-0, DX-17), so the calling model reads what to
 * correct and the server keeps serving. Only an unknown tool name is JSON-RPC InvalidParams.
 */
import { Server, type CallToolResult, type Tool } from "@modelcontextprotocol/server";
import {
  errorPayload,
  runCapability,
  type CapabilityApprove,
  type CapabilityRuntime,
  type CapabilitySpec,
} from "../../../domain/capabilities/capability-spec.js";
import { invalidParams } from "./workflow-result.js";
import { CARD_TOOL_IDS, clientSupportsMcpApps, serveCardApp, withCardApp } from "./card-app.js";
import type { ViewerAssets } from "../../../ports/viewer-assets.js";

/** Options of {@link createCapabilityMcpServer}. */
export interface CapabilityMcpServerOptions {
  runtime: CapabilityRuntime;
  /** Runs before every execution; a rejection is the call's error and nothing is written. */
  approve?: CapabilityApprove;
  /** Announced server version; defaults to the library version. */
  version?: string;
  /** Where the built MCP Apps card view is (`dist/viewer`); found next to the package by default (VIEW-5). */
  viewerAssetsDirectory?: string;
  /** The built card view's reader (VIEW-5), handed in by the composition root. */
  viewerAssets: ViewerAssets;
}

/** The version capability servers announce unless told otherwise. */
export const CAPABILITY_SERVER_VERSION = "0.1.0";

/**
 * The MCP tool a spec lists: short name, description, input schema.
 *
 * @example
 * capabilityMcpTool(kvCapability).name // "kv_store"
 */
export function capabilityMcpTool(spec: CapabilitySpec<any>): Tool {
  return { name: spec.address.toolName, description: spec.description, inputSchema: spec.parameters as unknown as Tool["inputSchema"] };
}

/**
 * An MCP `Server` for one capability; connect it to a transport yourself.
 *
 * @example
 * const server = createCapabilityMcpServer(kvCapability, { runtime });
 * await server.connect(new StdioServerTransport());
 */
export function createCapabilityMcpServer(spec: CapabilitySpec<any>, options: CapabilityMcpServerOptions): Server {
  // Card tools also serve their MCP Apps view (VIEW-5); the tool listing gains the view's `_meta`
  // only for a client that announced MCP Apps support.
  const cards = CARD_TOOL_IDS.includes(spec.address.toolId);
  const server = new Server(
    { name: spec.address.serviceId, version: options.version ?? CAPABILITY_SERVER_VERSION },
    { capabilities: cards ? { tools: {}, resources: {} } : { tools: {} } },
  );
  const tool = capabilityMcpTool(spec);
  server.setRequestHandler("tools/list", async () => ({ tools: [cards && (await clientSupportsMcpApps(server)) ? withCardApp(tool) : tool] }));
  if (cards) serveCardApp(server, { assets: options.viewerAssets, ...(options.viewerAssetsDirectory === undefined ? {} : { assetsDirectory: options.viewerAssetsDirectory }) });
  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    // DX-17: an unknown tool is a protocol error (the MCP spec's); everything else is a tool result.
    if (request.params.name !== tool.name) throw invalidParams(`unknown tool: ${request.params.name}; this server serves ${tool.name}`);
    try {
      const result = await runCapability(spec, options.runtime, request.params.arguments ?? {}, options.approve, ctx.mcpReq.signal);
      return { content: result.content, structuredContent: result.details ?? {} };
    } catch (error) {
      return capabilityErrorResult(error);
    }
  });
  return server;
}

/**
 * The MCP result of a failure: `isError: true`, with `{ error: { code, message, field? } }` as
 * both structured content and text.
 *
 * @example
 * capabilityErrorResult(new SteamharnessError("not_found", "no such key")).isError // true
 */
export function capabilityErrorResult(error: unknown): CallToolResult {
  const payload = errorPayload(error);
  return { isError: true, content: [{ type: "text", text: JSON.stringify(payload) }], structuredContent: payload as unknown as Record<string, unknown> };
}
