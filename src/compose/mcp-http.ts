/**
 * The public way to serve MCP servers of the library over Streamable HTTP from a host's own
 * `node:http` server (MCP-11). The MCP SDK (and its HTTP stack) loads on the first call, never
 * with the root entry (PERF-1).
 */
import type { McpHttpHandler, McpHttpHandlerOptions } from "../adapters/driving/mcp/transport/http-handler.js";

/**
 * A `node:http` request listener serving MCP over Streamable HTTP: one server per session from
 * `createServer` (e.g. {@link createProjectCapabilityServer}), stateful sessions, the Host header
 * checked against `allowedHosts` (loopback names by default) and a browser's `Origin` against
 * `allowedOrigins` (403 otherwise), optional bearer authorization (`auth`). Other paths than
 * `path` (`/mcp`) answer 404. Rejects with `input_validation` for a path not starting with `/`,
 * and with `unavailable` when OAuth is asked for and the authorization server's metadata cannot be read.
 *
 * @example
 * const handler = await createMcpHttpHandler({ createServer: () => createProjectCapabilityServer(CAPABILITY_TOOL_IDS.kv, { context }) });
 * createServer(handler).listen(3000, "127.0.0.1");
 */
export async function createMcpHttpHandler(options: McpHttpHandlerOptions): Promise<McpHttpHandler> {
  const { mcpHttpListener } = await import("../adapters/driving/mcp/transport/http-handler.js");
  return mcpHttpListener(options);
}
