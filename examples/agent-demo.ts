/**
 * The README demo: an agent run that uses the knowledge and KV capability tools and a coding tool
 * in a temporary workdir, pauses for an approval (writing a file needs one under the "ask"
 * policy) and resumes with the same run id.
 *
 * Offline by default (a scripted model, no network). With OPENAI_API_KEY or ANTHROPIC_API_KEY set,
 * the same demo runs on that provider: the key is passed explicitly to createProviderModel — the
 * library itself never reads keys from the environment.
 *
 *   node --import tsx examples/agent-demo.ts
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MemoryStorage } from "../src/adapters/memory/memory-storage.js";
import { createMemoryToolPermissions } from "../src/adapters/memory/memory-tool-permissions.js";
import { createProviderModel } from "../src/adapters/providers/provider-model.js";
import { createAgentNode } from "../src/agent/create-agent-node.js";
import { createProjectCapabilityTools } from "../src/capabilities/project-capabilities.js";
import { isSteamharnessError, UserInputRequiredError } from "../src/domain/errors.js";
import type { OutputItem } from "../src/domain/output-items.js";
import { runStreamNode } from "../src/domain/stream-node.js";
import type { ModelProvider } from "../src/ports/model-provider.js";
import { createOfflineModel } from "../src/testing/offline-model.js";
import { createNodeContext } from "../src/workflow/node-context.js";

const KV = "workflow-kv_kv_store";
const KNOWLEDGE = "workflow-knowledge_knowledge_documents";

function chooseModel(): ModelProvider {
  if (process.env.OPENAI_API_KEY) {
    return createProviderModel({ apiKind: "openai-responses", baseUrl: "https://api.openai.com/v1", apiKey: process.env.OPENAI_API_KEY, model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini" });
  }
  if (process.env.ANTHROPIC_API_KEY) {
    return createProviderModel({ apiKind: "anthropic-messages", baseUrl: "https://api.anthropic.com", apiKey: process.env.ANTHROPIC_API_KEY, model: process.env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5" });
  }
  return createOfflineModel({
    steps: [
      { reasoning: "The style guide says how notes look.", text: "I'll read the style guide first.", toolCalls: [{ name: KNOWLEDGE, arguments: { action: "get", documentId: "style-guide" } }] },
      { text: "Recording that the notes were requested.", toolCalls: [{ name: KV, arguments: { action: "set", key: "demo.notes.status", value: "requested" } }] },
      { text: "Now writing NOTES.md.", toolCalls: [{ name: "write", arguments: { path: "NOTES.md", content: "# Notes\n\n- Keep sentences short.\n" } }] },
      { text: "Done: NOTES.md follows the style guide, and the request is recorded in KV." },
    ],
  });
}

function show(items: OutputItem[]): void {
  for (const item of items) {
    const { kind, partType, tool } = item.metadata;
    if (item.display?.type === "ring") console.log(`  ◔ context ${JSON.stringify(item.content)}`);
    else if (kind === "agent-part" && partType === "tool") {
      const content = item.content as { status: string; result?: string };
      console.log(`  ⚙ ${tool} [${content.status}]${content.result ? ` → ${content.result.slice(0, 70).replace(/\n/g, " ")}` : ""}`);
    } else if (kind === "agent-part") console.log(`  ${partType === "reasoning" ? "…" : "›"} ${String(item.content)}`);
    else if (kind === "agent-notice" || kind === "agent-error") console.log(`  ${kind}: ${String(item.content)}`);
  }
}

const workdir = mkdtempSync(path.join(tmpdir(), "steamharness-demo-"));
const storage = new MemoryStorage();
await storage.knowledge.upsert("demo", { documentId: "style-guide", title: "Style guide", markdown: "Notes use short sentences and a single heading." });
const permissions = createMemoryToolPermissions();
const node = createAgentNode({
  name: "agent",
  models: chooseModel(),
  workdir,
  permissionPolicy: "ask",
  systemPrompt: "You are a careful assistant. Use the knowledge tool for the style guide, record progress in KV, and write NOTES.md in the workdir.",
  // Capability tools close over this run's context; the host catalog below governs them (CAP-3).
  createTools: (context) => createProjectCapabilityTools({ context }),
  maxSteps: 12,
});
const context = () =>
  createNodeContext({
    projectId: "demo",
    storage,
    runId: "demo-run-1",
    toolPermissions: permissions,
    tools: [{ id: KV, autoApprove: true }, { id: KNOWLEDGE, autoApprove: true }],
  });
const input = { prompt: "Write NOTES.md following our style guide, and record in KV that you did." };

try {
  for (let attempt = 1; attempt <= 5; attempt++) {
    try {
      const { output } = await runStreamNode(node, input, context());
      console.log(`run ${attempt}: finished`);
      show(output.items);
      console.log(`payload: model=${output.provider}/${output.model} toolCallCount=${output.toolCallCount} errCode=${output.errCode}`);
      break;
    } catch (error) {
      if (!(error instanceof UserInputRequiredError)) throw error;
      console.log(`run ${attempt}: paused (${error.code}) for ${JSON.stringify(error.request.toolId ?? error.request.kind)} — request ${error.requestId}`);
      // The host asks a person; the demo approves, then resumes the same run id.
      permissions.resolve(error.requestId, { outcome: "approved" });
    }
  }
  const status = await storage.kv.get({ projectId: "demo" }, "demo.notes.status");
  console.log(`KV demo.notes.status = ${JSON.stringify(status?.value ?? null)}`);
  try {
    console.log(`NOTES.md:\n${readFileSync(path.join(workdir, "NOTES.md"), "utf8")}`);
  } catch {
    console.log("NOTES.md was not written");
  }
  const usage = await context().tokenUsage.total();
  console.log(`token usage: ${usage.total} tokens (input ${usage.input}, output ${usage.output})`);
} catch (error) {
  console.error(isSteamharnessError(error) ? `[${error.code}] ${error.message}` : error);
  process.exitCode = 1;
} finally {
  rmSync(workdir, { recursive: true, force: true });
  await storage.close();
}
