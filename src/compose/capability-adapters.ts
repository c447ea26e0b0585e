/**
 * The composition root's capability adapters: the MCP server rendering and the host-bridge HTTP
 * client (CAP-8). Apart from the other defaults so that only capability code loads the MCP SDK.
 */
export { createCapabilityMcpServer } from "../adapters/mcp/capability-server.js";
export { createHttpHostBridge } from "../adapters/host-bridge/http-host-bridge.js";
