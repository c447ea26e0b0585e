/**
 * The stdio transport of the MCP adapter (MCP-10): the one place the SDK's stdio server
 * transport is imported. Callers load this module lazily, beside the server module, so
 * `steamharness mcp` over stdio starts as it always did.
 */
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from "@modelcontextprotocol/server";
import type { McpServerHandle } from "../../../../ports/mcp-server.js";

/**
 * A started transport whose messages wait until a server connects: stdin is read (and its end
 * seen) from the start, while the server that answers is still being built.
 */
class HeldTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private held: [JSONRPCMessage, MessageExtraInfo | undefined][] = [];
  private connected = false;

  constructor(private readonly inner: Transport) {
    inner.onmessage = (message, extra) => (this.connected ? this.onmessage?.(message, extra) : void this.held.push([message, extra]));
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.onclose?.();
  }

  async start(): Promise<void> {
    this.connected = true;
    for (const [message, extra] of this.held.splice(0)) this.onmessage?.(message, extra);
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * Serves one MCP server on this process's stdin/stdout until the client goes away. Given a
 * promise of the server, stdin is read at once and the client's first messages (its
 * `initialize`) wait for the server: how the workflow server declares capabilities that depend
 * on the project it loads (MCP-15).
 *
 * @example
 * await connectStdio(createWorkflowMcpServer(manifest, host));
 */
export async function connectStdio(server: McpServerHandle | Promise<McpServerHandle>): Promise<void> {
  const transport = new StdioServerTransport();
  if (!(server instanceof Promise)) return server.connect(transport);
  const held = new HeldTransport(transport);
  await transport.start();
  let ready: McpServerHandle;
  try {
    ready = await server;
  } catch (error) {
    await transport.close();
    throw error;
  }
  await ready.connect(held);
}
