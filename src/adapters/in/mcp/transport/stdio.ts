/**
 * The stdio transport of the MCP adapter (MCP-10): the one place the SDK's stdio server
 * transport is imported. Callers load this module lazily, beside the server module, so
 * `steamharness mcp` over stdio starts as it always did.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { McpServerHandle } from "../../../../ports/mcp-server.js";

/**
 * Serves one MCP server on this process's stdin/stdout until the client goes away.
 *
 * @example
 * await connectStdio(createWorkflowMcpServer(manifest, host));
 */
export async function connectStdio(server: McpServerHandle): Promise<void> {
  await server.connect(new StdioServerTransport());
}
