// A host wiring the capability tools (CAP-1 … CAP-3) and serving one of them over stdio.
//   node --import tsx examples/capabilities-host.ts
// 1. The host's tool catalog auto-approves KV, asks a person for knowledge, and does not declare
//    memory: approve is wired to createToolApprovalGate, the single approval chain.
// 2. A knowledge write pauses for approval; once approved, the host resumes it by tool id.
// 3. The same store is then served as the `workflow-kv` MCP server in a child process (this file
//    with --serve) and read back with the MCP SDK Client over stdio.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import {
  createNodeContext,
  createToolApprovalGate,
  isSteamharnessError,
  UserInputRequiredError,
} from "steamharness";
import {
  CAPABILITY_TOOL_IDS,
  createProjectCapabilityServer,
  createProjectCapabilityTools,
  runProjectCapabilityAction,
} from "steamharness/capabilities";
import { createMemoryToolPermissions } from "steamharness/memory";
import { createSqliteStorage } from "steamharness/sqlite";

const PROJECT = "example-project";

async function serve(directory: string): Promise<void> {
  const storage = createSqliteStorage({ directory });
  const context = createNodeContext({ projectId: PROJECT, storage });
  const server = await createProjectCapabilityServer(CAPABILITY_TOOL_IDS.kv, { context });
  server.onclose = () => void storage.close();
  await server.connect(new StdioServerTransport());
}

async function host(directory: string): Promise<void> {
  const storage = createSqliteStorage({ directory });
  const toolPermissions = createMemoryToolPermissions();
  const context = createNodeContext({
    projectId: PROJECT,
    storage,
    toolPermissions,
    toolCatalog: [
      { id: CAPABILITY_TOOL_IDS.kv, autoApprove: true },
      { id: CAPABILITY_TOOL_IDS.knowledge },
      { id: CAPABILITY_TOOL_IDS.presentCard, autoApprove: true },
    ],
  });
  const approval = createToolApprovalGate();
  const tools = await createProjectCapabilityTools({
    context,
    globalMemory: true,
    approve: (toolId, args) => approval.approve({ name: toolId, arguments: args }, context),
  });
  const tool = (id: string) => tools.find((t) => t.name === id)!;
  console.log("tools this turn:", tools.map((t) => t.name).join(", "));

  // KV is auto-approved; its result carries a resource card for the host.
  const set = await tool(CAPABILITY_TOOL_IDS.kv).execute("call-1", { action: "set", key: "settings.theme", value: "dark" });
  console.log("kv set →", set.content[0].text, "card:", JSON.stringify(set.details?.resourceCard));

  // Knowledge needs a person: the call pauses, nothing is written yet.
  const args = { action: "upsert", documentId: "roadmap", title: "Roadmap", markdown: "# Roadmap\n- ship capability tools" };
  const paused = await tool(CAPABILITY_TOOL_IDS.knowledge).execute("call-2", args).catch((error: unknown) => error);
  if (!(paused instanceof UserInputRequiredError)) throw new Error("expected the knowledge write to wait for approval");
  console.log("knowledge upsert paused for approval:", paused.requestId);
  toolPermissions.resolve(paused.requestId, { outcome: "approved" });
  // The paused turn is over; the host resumes by tool id with the approved arguments.
  const resumed = await runProjectCapabilityAction(CAPABILITY_TOOL_IDS.knowledge, context, args);
  console.log("knowledge upsert resumed →", resumed.content[0].text);

  // Memory is not declared in executor.tools: approval fails with "tool not registered".
  const refused = await tool(CAPABILITY_TOOL_IDS.memory).execute("call-3", { action: "remember", markdown: "Prefers dark mode" }).catch((e: unknown) => e);
  if (!isSteamharnessError(refused, "tool_not_registered")) throw new Error("expected tool_not_registered");
  console.log("memory:", refused.message);
  await storage.close();

  // Serve KV over stdio from a child process and read the value back through MCP.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", fileURLToPath(import.meta.url), "--serve", directory],
    stderr: "inherit",
  });
  const client = new Client({ name: "example-host", version: "0.0.0" });
  await client.connect(transport);
  const [listed] = (await client.listTools()).tools;
  console.log(`MCP server ${client.getServerVersion()?.name} lists ${listed.name} → tool id ${client.getServerVersion()?.name}_${listed.name}`);
  const read = await client.callTool({ name: listed.name, arguments: { action: "get", key: "settings.theme" } });
  console.log("over stdio →", (read.content as Array<{ text: string }>)[0].text);
  const refusedOverMcp = await client.callTool({ name: listed.name, arguments: { action: "set", key: "tokenUsage.total", value: 0 } });
  console.log("reserved key over stdio →", (refusedOverMcp.content as Array<{ text: string }>)[0].text);
  await client.close();
}

if (process.argv[2] === "--serve") {
  await serve(process.argv[3]!);
} else {
  const directory = mkdtempSync(join(tmpdir(), "steamharness-capabilities-"));
  try {
    await host(directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
