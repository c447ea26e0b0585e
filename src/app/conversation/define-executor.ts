/**
 * `defineAgentConversationExecutor` (CONV-1): the short way to make a whole project one agent.
 * The options are the agent node's options (`createAgentNode`) plus `executor`, the declaration
 * the host reads: `executor.tools` (the tool catalog — `tools` at the top level already means
 * "tool names offered to the model" for the agent, hence the nesting) and
 * `executor.conversation` (recovery, durable history, the OpenAI answer item id).
 */
import type { AgentNodeOptions } from "../agent-node/create-agent-node.js";
import { SteamharnessError } from "../../domain/errors.js";
import type { ToolCatalogEntry } from "../../domain/node-context.js";
import {
  AgentConversationExecutorDeclarationSchema,
  CheckedAgentOptionsSchema,
  checkDeclaration,
  type AgentConversationExecutorDeclaration,
} from "./executor-schema.js";

/** Options of {@link defineAgentConversationExecutor}: agent-node options plus `executor`. */
export interface AgentConversationExecutorOptions extends AgentNodeOptions {
  executor: AgentConversationExecutorDeclaration;
}

/** A validated conversation executor: what a conversation project's module default-exports. */
export interface AgentConversationExecutor {
  readonly kind: "agent-conversation-executor";
  /** The options for `createAgentNode` (with `outputItemId` taken from `conversation.openai` when set there only). */
  readonly agent: AgentNodeOptions;
  /** The host's tool catalog, from `executor.tools` normalised (`enabled` defaults to true, `autoApprove` to false). */
  readonly toolCatalog: readonly ToolCatalogEntry[];
  /** How the conversation runs, from `executor.conversation`. */
  readonly conversation: AgentConversationExecutorDeclaration["conversation"];
}

const EXECUTOR_KIND = "agent-conversation-executor";

/**
 * Validates and returns a conversation executor. Throws `input_validation` naming the field for:
 * a missing or malformed `executor` (tool entries `{ id, enabled?, autoApprove? }`, unique ids,
 * `conversation.recovery.enabled` and `conversation.durable.enabled` booleans), recovery without
 * durable history, an `outputItemId` that differs from `conversation.openai.outputItemId`, a
 * catalog entry both disabled and auto-approved, mistyped agent options, and executor fields
 * (`conversation`, a catalog in `tools`) put at the top level by mistake.
 *
 * @example
 * export default defineAgentConversationExecutor({
 *   name: "assistant",
 *   systemPrompt: "You help with the roadmap.",
 *   createTools: (context) => createProjectCapabilityTools({ context }),
 *   executor: {
 *     tools: [{ id: "workflow-kv_kv_store", enabled: true, autoApprove: true }],
 *     conversation: { recovery: { enabled: true }, durable: { enabled: true }, openai: { outputItemId: "answer" } },
 *   },
 * });
 */
export function defineAgentConversationExecutor(options: AgentConversationExecutorOptions | AgentConversationExecutor): AgentConversationExecutor {
  if (isAgentConversationExecutor(options)) return options;
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw invalid("options", "defineAgentConversationExecutor takes an options object");
  }
  const { executor: rawExecutor, ...agentOptions } = options as AgentConversationExecutorOptions & Record<string, unknown>;
  misplaced(agentOptions);
  if (rawExecutor === undefined) {
    throw invalid("executor", "executor is required: { tools: [...], conversation: { recovery: { enabled }, durable: { enabled } } }");
  }
  const declared = checkDeclaration(AgentConversationExecutorDeclarationSchema, rawExecutor, "executor");
  checkDeclaration(CheckedAgentOptionsSchema, agentOptions, "");
  const seen = new Set<string>();
  const tools = declared.tools.map((tool, index) => {
    if (seen.has(tool.id)) throw invalid(`executor.tools[${index}].id`, `tool "${tool.id}" is declared twice`);
    seen.add(tool.id);
    const enabled = tool.enabled ?? true;
    if (!enabled && tool.autoApprove === true) {
      throw invalid(`executor.tools[${index}].autoApprove`, `tool "${tool.id}" is disabled; autoApprove would never apply — remove one of them`);
    }
    return { id: tool.id, enabled, autoApprove: tool.autoApprove ?? false };
  });
  const { conversation } = declared;
  if (conversation.recovery.enabled && !conversation.durable.enabled) {
    throw invalid("executor.conversation.recovery.enabled", "recovery needs durable history: set conversation.durable.enabled to true");
  }
  const openaiId = conversation.openai?.outputItemId;
  if (openaiId !== undefined && agentOptions.outputItemId !== undefined && agentOptions.outputItemId !== openaiId) {
    throw invalid("outputItemId", `outputItemId "${agentOptions.outputItemId}" must equal executor.conversation.openai.outputItemId "${openaiId}" (the OpenAI adapter reads the answer by that id)`);
  }
  const agent: AgentNodeOptions = { ...agentOptions, ...(openaiId !== undefined ? { outputItemId: openaiId } : {}) };
  const normalised: AgentConversationExecutorDeclaration["conversation"] = {
    recovery: { enabled: conversation.recovery.enabled },
    durable: { enabled: conversation.durable.enabled },
    ...(openaiId !== undefined ? { openai: { outputItemId: openaiId } } : {}),
  };
  return Object.freeze({ kind: EXECUTOR_KIND, agent, toolCatalog: deepFreeze(tools), conversation: deepFreeze(normalised) });
}

/**
 * True for a value made by {@link defineAgentConversationExecutor} (or the same shape from
 * another copy of the library).
 *
 * @example
 * if (!isAgentConversationExecutor(mod.default)) throw new Error("not a conversation executor");
 */
export function isAgentConversationExecutor(value: unknown): value is AgentConversationExecutor {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === EXECUTOR_KIND && "agent" in value && "toolCatalog" in value;
}

function misplaced(agentOptions: Record<string, unknown>): void {
  if ("conversation" in agentOptions) {
    throw invalid("conversation", "conversation belongs inside executor: executor: { tools, conversation }");
  }
  const tools = agentOptions.tools;
  if (Array.isArray(tools) && tools.some((t) => typeof t === "object" && t !== null)) {
    throw invalid("tools", "a tool catalog ({ id, enabled, autoApprove }) belongs in executor.tools; top-level tools lists tool names offered to the model");
  }
}

function invalid(field: string, message: string): SteamharnessError {
  return new SteamharnessError("input_validation", `[steamharness] [conversation] ${message}`, { field });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const item of Object.values(value as object)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
