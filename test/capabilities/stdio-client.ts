// Spawns test/fixtures/capability-stdio-server.ts as a real child process and connects the SDK
// Client to it over stdio.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

export const STDIO_SERVER = "test/fixtures/capability-stdio-server.ts";

export async function spawnCapabilityServer(toolId: string, options: { args?: string[]; env?: Record<string, string> } = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bundledFixture(STDIO_SERVER), toolId, ...(options.args ?? [])],
    env: { ...(process.env as Record<string, string>), ...options.env },
    stderr: "pipe",
  });
  const client = new Client({ name: "capability-stdio-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}
