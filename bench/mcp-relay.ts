/**
 * The relay server of the MCP floor benchmarks (mcp-cpu, mcp-floor): the MCP SDK's low-level
 * stdio `Server` handing every `ping` call to one of `width` idle child processes over node's IPC
 * channel (`serialization: "advanced"`, as our worker pool uses), which answer at once — the
 * cheapest design that still runs each call in a worker process (MCP-5).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes the relay script into `work` (inside the repo, so it resolves the same node_modules); returns its path. */
export function writeRelayServer(work: string, width: number): string {
  const relay = join(work, "relay-server.mjs");
  writeFileSync(
    relay,
    `import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
if (process.argv[2] === "child") {
  process.on("message", (message) => process.send({ id: message.id, result: { pong: true } }));
} else {
  const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const idle = [];
  const pending = new Map();
  let next = 0;
  for (let i = 0; i < ${width}; i++) {
    const child = fork(fileURLToPath(import.meta.url), ["child"], { stdio: ["ignore", "ignore", "ignore", "ipc"], serialization: "advanced" });
    child.on("message", (message) => { idle.push(child); pending.get(message.id)(message.result); pending.delete(message.id); });
    idle.push(child);
  }
  const server = new Server({ name: "relay", version: "0.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "ping", inputSchema: { type: "object", properties: {}, additionalProperties: false } }] }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    const child = idle.pop();
    const id = next++;
    const result = await new Promise((resolve) => { pending.set(id, resolve); child.send({ id }); });
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  });
  const transport = new StdioServerTransport();
  transport.onclose = () => process.exit(0);
  await server.connect(transport);
  process.stdin.on("end", () => process.exit(0));
}
`,
  );
  return relay;
}
