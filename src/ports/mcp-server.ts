/**
 * An MCP server as the rest of the library sees it (MCP-10). The MCP adapter
 * (`src/adapters/driving/mcp`) builds it on the MCP SDK; nothing outside that folder names an SDK
 * type, so a later move to another SDK line (v2, spec 2026-07-28) changes only that folder.
 *
 * The SDK's low-level `Server` satisfies this interface, so a host connects it to any SDK
 * transport it likes (`await server.connect(new StdioServerTransport())`), or serves it over
 * HTTP with `createMcpHttpHandler`.
 */
export interface McpServerHandle {
  /**
   * Starts serving one transport: an MCP SDK `Transport` object (stdio, Streamable HTTP, in
   * memory). Resolves once the transport is started; rejects when it cannot start. One server
   * serves one transport at a time: build one server per connection.
   */
  connect(transport: object): Promise<void>;
  /** Closes the transport; `onclose` then runs. Resolves when closed; never rejects for a closed server. */
  close(): Promise<void>;
  /** Called once the transport closed (client gone, `close()`, stdin ended). */
  onclose?: (() => void) | undefined;
}
