/**
 * steamharness/mcp — workflow projects served over MCP's Streamable HTTP inside a host's own HTTP
 * server (MCP-11, MCP-12; docs/mcp-http.md), with its authentication options (ARCH-11: a subpath
 * of its own, as the gateway has, so the root import graph never loads the MCP server).
 * Every export here is public API.
 */
export { createMcpHttpHandler } from "./compose/mcp-http.js";
export type { McpHttpHandler, McpHttpHandlerOptions } from "./adapters/driving/mcp/transport/http-handler.js";
export type { McpHttpAuthOptions, McpHttpOAuth, McpHttpTokenAuth } from "./adapters/driving/mcp/transport/http-auth.js";
export type { McpScopePolicy } from "./adapters/driving/mcp/transport/http-scopes.js";
export type { McpServerHandle } from "./ports/mcp-server.js";
