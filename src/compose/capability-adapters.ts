/**
 * The composition root's capability adapters: the MCP server rendering and the host-bridge HTTP
 * client (CAP-8). Apart from the other defaults so that only capability code loads the MCP SDK.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CapabilitySpec } from "../domain/capabilities/capability-spec.js";
import type { CapabilityMcpServerOptions } from "../adapters/mcp/capability-server.js";

export { createHttpHostBridge } from "../adapters/host-bridge/http-host-bridge.js";

/**
 * An MCP `Server` for one capability spec. The MCP adapter, and with it the MCP SDK and zod
 * (~200 ms of module loading), is imported on the first call, not with the root entry (PERF-1).
 *
 * @example
 * const server = await createCapabilityMcpServer(kvCapability, { runtime });
 */
export async function createCapabilityMcpServer(spec: CapabilitySpec<any>, options: CapabilityMcpServerOptions): Promise<Server> {
  const adapter = await import("../adapters/mcp/capability-server.js");
  return adapter.createCapabilityMcpServer(spec, options);
}
