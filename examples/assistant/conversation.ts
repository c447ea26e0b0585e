/**
 * The example assistant: a conversation project (see docs/conversation-projects.md).
 *
 *   npx steamharness chat examples/assistant            # offline model, no key needed
 *   OPENAI_API_KEY=sk-... npx steamharness chat examples/assistant   # a real model
 *
 * It remembers notes in the project's KV store through the capability tools; the KV tool is
 * auto-approved in the catalog, the knowledge tool asks at the prompt. "show my configurations"
 * reads this project's configurations through the host bridge `steamharness chat` starts; where
 * there is none (`steamharness gateway`), the assistant says it cannot read them.
 */
import { defineAgentConversationExecutor } from "steamharness";
import { createProjectCapabilityTools } from "steamharness/capabilities";
import type { ModelRequest } from "steamharness/ports";
import { createOfflineModel, type OfflineStep } from "steamharness/testing";

const KV = "workflow-kv_kv_store";
const HOST = "workflow-host_project_configurations";
const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((b) => (b as { text?: string }).text ?? "").join("") : "";

/** A tool result's JSON, or `null` when it is not JSON (a tool error reads `[code] message`). */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The offline script: "remember <something>", "recall", anything else gets the help text. */
function offlineStep(request: ModelRequest): OfflineStep {
  const last = request.messages[request.messages.length - 1]!;
  if (last.role === "toolResult" && last.toolName === HOST) {
    const listed = jsonOf(textOf(last.content)) as { configurations?: Array<{ name: string; revision: number }> } | null;
    // Without a host bridge (the gateway, an MCP client) the tool is not there: say so.
    if (last.isError || !Array.isArray(listed?.configurations)) return { text: `I cannot read this project's configurations here (${textOf(last.content) || "no result"}); \`steamharness chat\` provides them.` };
    const names = listed.configurations.map((c) => `${c.name} (revision ${c.revision})`);
    return { text: names.length > 0 ? `Configurations: ${names.join(", ")}.` : "This project has no configurations yet." };
  }
  if (last.role === "toolResult") {
    const result = jsonOf(textOf(last.content)) as { value?: unknown } | null;
    return { text: result && "value" in result && result.value !== undefined ? `You asked me to remember: ${String(result.value)}` : "Noted." };
  }
  const said = textOf(last.content);
  const remember = /remember (.+)/i.exec(said);
  if (remember) return { text: "I'll note that.", toolCalls: [{ name: KV, arguments: { action: "set", key: "note", value: remember[1]! } }] };
  if (/configuration/i.test(said)) return { toolCalls: [{ name: HOST, arguments: { action: "get_configurations" } }] };
  if (/recall|what did i/i.test(said)) return { toolCalls: [{ name: KV, arguments: { action: "get", key: "note" } }] };
  return { text: "I am the example assistant, running on the offline model. Try “remember buy milk”, then “recall”. For a real model, start the chat with OPENAI_API_KEY set: this example reads it itself and passes it as its apiKey (steamharness never reads keys from the environment on its own)." };
}

const openAiKey = process.env.OPENAI_API_KEY;

export default defineAgentConversationExecutor({
  name: "example-assistant",
  systemPrompt: "You are a concise assistant. Use the KV store to remember notes the user asks you to keep.",
  ...(openAiKey
    ? { provider: "openai", model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini", apiKind: "openai-responses" as const, baseUrl: "https://api.openai.com/v1", apiKey: openAiKey }
    : { models: createOfflineModel({ steps: offlineStep }) }),
  permissionPolicy: "ask",
  createTools: (context) => createProjectCapabilityTools({ context }),
  executor: {
    tools: [
      { id: KV, enabled: true, autoApprove: true },
      { id: "workflow-knowledge_knowledge_documents", enabled: true },
      { id: "workflow-ui_present_card", enabled: true },
      // Present when the host provides a bridge (steamharness chat starts one); asks before each call.
      { id: HOST, enabled: true },
    ],
    conversation: { recovery: { enabled: true }, durable: { enabled: true } },
  },
});
