/**
 * The main demo (`npm run demo`, the README's first command), offline and on the embedded SQLite
 * default:
 *  1. an agent run with tools — knowledge and KV capability tools plus a coding tool in a
 *     temporary workdir — on a durable SQLite session, pausing for an approval and resuming the
 *     same run id;
 *  2. `steamharness mcp` serving the example workflow project, driven by the MCP SDK's client
 *     over stdio: list the tools, call one.
 *
 * With OPENAI_API_KEY or ANTHROPIC_API_KEY set, part 1 runs on that provider (the key is passed
 * explicitly; the library never reads keys from the environment).
 *
 * DX-11: everything the demo writes stays in one folder, `.steamharness-demo` in the current
 * directory (or the folder passed as `npm run demo -- <dir>`), replaced on each run; the demo ends
 * by printing the one command that opens its session in the run viewer.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  createAgentNode,
  createNodeContext,
  createProviderModel,
  finalText,
  runStreamNode,
  UserInputRequiredError,
  type ModelProvider,
  type OutputItem,
} from "steamharness";
import { createMemoryToolPermissions } from "steamharness/memory";
import { createProjectCapabilityTools } from "steamharness/capabilities";
import { createSqliteStorage } from "steamharness/sqlite";
import { createOfflineModel } from "steamharness/testing";

const KV = "workflow-kv_kv_store";
const KNOWLEDGE = "workflow-knowledge_knowledge_documents";

function chooseModel(): ModelProvider {
  const { OPENAI_API_KEY, ANTHROPIC_API_KEY } = process.env;
  if (OPENAI_API_KEY) return createProviderModel({ apiKind: "openai-responses", baseUrl: "https://api.openai.com/v1", apiKey: OPENAI_API_KEY, model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini" });
  if (ANTHROPIC_API_KEY) return createProviderModel({ apiKind: "anthropic-messages", baseUrl: "https://api.anthropic.com", apiKey: ANTHROPIC_API_KEY, model: process.env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5" });
  return createOfflineModel({
    steps: [
      { reasoning: "Notes must follow the style guide.", text: "Reading the style guide first.", toolCalls: [{ name: KNOWLEDGE, arguments: { action: "search", query: "style notes" } }] },
      { text: "Recording the request.", toolCalls: [{ name: KV, arguments: { action: "set", key: "demo.notes.status", value: "requested" } }] },
      { text: "Writing NOTES.md.", toolCalls: [{ name: "write", arguments: { path: "NOTES.md", content: "# Notes\n\n- Keep sentences short.\n" } }] },
      { text: "Done: NOTES.md follows the style guide and the request is recorded in KV." },
    ],
  });
}

function show(items: OutputItem[]): void {
  for (const item of items) {
    const { kind, partType, tool } = item.metadata;
    if (item.display?.type === "ring") console.log(`  ◔ context ${JSON.stringify(item.content)}`);
    else if (kind === "agent-part" && (partType === "tool" || partType === "patch" || partType === "file")) console.log(`  ⚙ ${String(tool)} ${JSON.stringify((item.content as { status?: string }).status ?? "")}`);
    else if (kind === "agent-part" || kind === "agent-answer") console.log(`  ${partType === "reasoning" ? "…" : "›"} ${String(item.content)}`);
    else if (kind === "agent-notice" || kind === "agent-error") console.log(`  ${kind}: ${String(item.content)}`);
  }
}

async function agentPart(root: string): Promise<void> {
  console.log("— 1. agent run on SQLite, with tools and an approval —");
  const workdir = join(root, "workdir");
  mkdirSync(workdir);
  const storage = createSqliteStorage({ directory: join(root, "store") });
  await storage.knowledge.upsert("demo", { documentId: "style-guide", title: "Style guide", markdown: "Notes use short sentences and a single heading." });
  const permissions = createMemoryToolPermissions();
  const node = createAgentNode({
    models: chooseModel(),
    workdir,
    allowedDirectories: [],
    permissionPolicy: "ask",
    systemPrompt: "Use the knowledge tool for the style guide, record progress in KV, and write NOTES.md in the workdir.",
    createTools: (context) => createProjectCapabilityTools({ context }),
  });
  // A conversation run with storage.agentStoreDir: the session history is a durable SQLite file.
  const context = () =>
    createNodeContext({
      projectId: "demo",
      conversationId: "demo-conversation",
      storage,
      runId: "demo-run-1",
      toolPermissions: permissions,
      toolCatalog: [{ id: KV, autoApprove: true }, { id: KNOWLEDGE, autoApprove: true }],
    });
  const input = { prompt: "Write NOTES.md following our style guide, and record in KV that you did." };
  try {
    for (let attempt = 1; attempt <= 5; attempt++) {
      try {
        const { output } = await runStreamNode(node, input, context());
        console.log(`run ${attempt}: finished (errCode ${output.errCode}, ${output.toolCallCount} tool calls, ${output.provider}/${output.model})`);
        show(output.items);
        console.log(`final answer: ${finalText(output)}`);
        break;
      } catch (error) {
        if (!(error instanceof UserInputRequiredError)) throw error;
        console.log(`run ${attempt}: paused for approval of ${String(error.request.toolId ?? error.request.kind)} (request ${error.requestId}); approving and resuming the same run id`);
        permissions.resolve(error.requestId, { outcome: "approved" });
      }
    }
    console.log(`KV demo.notes.status = ${JSON.stringify((await storage.kv.get({ projectId: "demo" }, "demo.notes.status"))?.value ?? null)}`);
    console.log(`NOTES.md: ${JSON.stringify(readFileSync(join(workdir, "NOTES.md"), "utf8"))}`);
    console.log(`token usage: ${(await context().tokenUsage.total()).total} tokens; durable session files: ${readdirSync(storage.agentStoreDir!, { recursive: true }).filter((f) => String(f).endsWith(".sqlite")).join(", ")}`);
    // The node's execution history, read from its durable session (at most `historyLimit` runs).
    console.log(`execution history: ${(await node.history(context())).map((run) => `${run.runId} ${run.status} (${run.toolCallCount} tool calls)`).join("; ")}`);
  } finally {
    await storage.close();
  }
}

/** The installed package's `steamharness` bin (in this repository: the build in dist/). */
function steamharnessBin(): string {
  const manifest = createRequire(import.meta.url).resolve("steamharness/package.json");
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: { steamharness: string } };
  return join(dirname(manifest), bin.steamharness);
}

async function mcpPart(root: string): Promise<void> {
  console.log("\n— 2. steamharness mcp on the example workflow project —");
  const project = fileURLToPath(new URL("./workflow-project", import.meta.url));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [steamharnessBin(), "mcp", project, "--data-dir", join(root, "mcp-data")],
    stderr: "ignore",
  });
  const client = new Client({ name: "steamharness-demo", version: "1.0.0" });
  await client.connect(transport);
  try {
    const server = client.getServerVersion();
    const { tools } = await client.listTools();
    console.log(`server ${server?.name}: ${tools.map((tool) => tool.name).join(", ")}`);
    const result = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
    console.log(`greet → ${JSON.stringify(result.structuredContent)}`);
  } finally {
    await client.close();
  }
}

/** The file that marks a folder as the demo's own, so a rerun replaces only a folder the demo made. */
const MARKER = "STEAMHARNESS-DEMO";

/** The demo's folder, emptied: a folder that exists without the marker is left alone (exit 2). */
function prepareRoot(): string {
  const root = resolve(process.argv[2] ?? ".steamharness-demo");
  if (existsSync(root)) {
    if (readdirSync(root).length > 0 && !existsSync(join(root, MARKER))) {
      console.error(`demo: ${root} exists and is not a demo folder; pass another folder: npm run demo -- <dir>`);
      process.exit(2);
    }
    rmSync(root, { recursive: true, force: true });
  }
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, MARKER), "written by steamharness's examples/demo.ts; replaced on each run\n");
  return root;
}

/** A path as the user types it from the current directory (quoted when it has spaces). */
function typed(path: string): string {
  const fromHere = relative(process.cwd(), path);
  const shown = fromHere === "" || fromHere.startsWith("..") || isAbsolute(fromHere) ? path : fromHere;
  return /\s/.test(shown) ? JSON.stringify(shown) : shown;
}

const root = prepareRoot();
await agentPart(root);
await mcpPart(root);
console.log(`\nthe demo's files are in ${typed(root)}; open its session in the run viewer with:`);
console.log(`  npx steamharness view --store ${typed(join(root, "store"))}`);
