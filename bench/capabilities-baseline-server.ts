// The benchmark's baseline (issue 3 item 10): a bare MCP SDK `Server` over stdio whose one tool
// does the same raw better-sqlite3 get the capability KV does, with no validation, approval,
// cards or ports. Run by bench/capabilities.bench.ts:
//   node --import tsx bench/capabilities-baseline-server.ts <store directory>
import { join } from "node:path";
import Database from "better-sqlite3";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const sqlite = new Database(join(process.argv[2]!, "store.sqlite"), { readonly: true });
const get = sqlite.prepare("SELECT value, updated_at AS updatedAt FROM kv_entries WHERE project_id = ? AND conversation_id = ? AND key = ?");
const server = new Server({ name: "baseline-kv", version: "0.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: "kv_store", description: "raw get", inputSchema: { type: "object", properties: { key: { type: "string" } } } }],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const key = String(request.params.arguments?.key);
  const row = get.get("stdio-project", "", Buffer.from(key, "utf16le").swap16()) as { value: string; updatedAt: number } | undefined;
  const result = row ? { key, value: JSON.parse(row.value), updatedAt: new Date(row.updatedAt).toISOString() } : null;
  return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: { result } };
});
await server.connect(new StdioServerTransport());
