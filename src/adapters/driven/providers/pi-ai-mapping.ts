/**
 * Translation between the model-provider port's types and pi-ai's. pi-ai types are imported
 * for type checking only (erased), so this module loads nothing at run time.
 */
import type {
  AssistantMessage,
  Context,
  Message,
  TextContent,
  ThinkingContent,
  Tool,
  ToolCall,
  Usage,
} from "@mariozechner/pi-ai";
import type { JsonObject } from "../../../domain/json.js";
import type {
  ModelMessage,
  ModelReasoningBlock,
  ModelRequest,
  ModelTextBlock,
  ModelToolCallBlock,
} from "../../../ports/model-provider.js";
import type { TokenCounts } from "../../../ports/token-usage.js";
import type { ProviderApiKind } from "./pi-ai-loader.js";
import type { AssistantWithItems } from "./provider-items.js";

/** Who answers: decides whether earlier assistant turns are replayed verbatim (same model). */
export interface PiModelIdentity {
  api: ProviderApiKind;
  provider: string;
  model: string;
}

type AssistantBlock = ModelTextBlock | ModelReasoningBlock | ModelToolCallBlock;
type PiAssistantBlock = TextContent | ThinkingContent | ToolCall;

const ZERO_USAGE: Usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

// Our messages carry no wall-clock time; pi-ai only stores it, so a constant keeps requests
// byte-identical for the same history (stable replays, comparable benchmarks).
const TIMESTAMP = 0;

/**
 * Marks the signature of redacted reasoning (Anthropic `redacted_thinking`, whose encrypted
 * payload pi-ai keeps as the signature). The port's reasoning block has no `redacted` flag, and
 * the payload must go back as `redacted_thinking`, not as a signed `thinking` block.
 */
const REDACTED_SIGNATURE_PREFIX = "steamharness-redacted:";

function toPiAssistantBlock(block: AssistantBlock): PiAssistantBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "reasoning":
      if (block.signature === undefined) return { type: "thinking", thinking: block.text };
      if (block.signature.startsWith(REDACTED_SIGNATURE_PREFIX)) {
        const payload = block.signature.slice(REDACTED_SIGNATURE_PREFIX.length);
        return { type: "thinking", thinking: block.text, thinkingSignature: payload, redacted: true };
      }
      return { type: "thinking", thinking: block.text, thinkingSignature: block.signature };
    case "toolCall":
      return { type: "toolCall", id: block.id, name: block.name, arguments: block.arguments };
  }
}

function toPiMessage(message: ModelMessage, self: PiModelIdentity): Message {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content, timestamp: TIMESTAMP };
    case "toolResult":
      return {
        role: "toolResult",
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        content: message.content,
        isError: message.isError,
        timestamp: TIMESTAMP,
      };
    case "assistant": {
      // An assistant turn without provider/model was produced by this model. Turns of another
      // model get a foreign `api`, so pi-ai converts their reasoning and tool-call ids for this API.
      const provider = message.provider ?? self.provider;
      const model = message.model ?? self.model;
      const sameModel = provider === self.provider && model === self.model;
      const content = message.content.map(toPiAssistantBlock);
      const piMessage: AssistantWithItems = {
        role: "assistant",
        content,
        api: sameModel ? self.api : "steamharness-foreign",
        provider,
        model,
        usage: ZERO_USAGE,
        stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
        timestamp: TIMESTAMP,
      };
      // Hidden provider content (OUT-10) goes back only to the model that produced it, as its
      // reasoning does; provider-items.ts and openai-responses-input.ts put it on the wire.
      const items = sameModel ? (message.providerItems ?? []).filter((item) => item.api === self.api) : [];
      if (items.length > 0) piMessage.providerItems = items;
      return piMessage;
    }
  }
}

/**
 * Builds pi-ai's Context (system prompt, messages, tools) from a model request.
 *
 * @example
 * const context = toPiContext(request, { api: "openai-responses", provider: "openai", model: "gpt-5" });
 */
export function toPiContext(request: ModelRequest, self: PiModelIdentity): Context {
  const tools: Tool[] = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    // A JSON Schema object; pi-ai's TSchema type is only a static marker for TypeBox schemas.
    parameters: tool.parameters as unknown as Tool["parameters"],
  }));
  const context: Context = { messages: request.messages.map((message) => toPiMessage(message, self)) };
  if (request.systemPrompt !== undefined) context.systemPrompt = request.systemPrompt;
  if (tools.length > 0) context.tools = tools;
  return context;
}

/**
 * Our token counts from pi-ai's usage (pi-ai already splits cached input from fresh input).
 *
 * @example
 * fromPiUsage(message.usage) // { input, output, cacheRead, cacheWrite, total }
 */
export function fromPiUsage(usage: Usage): TokenCounts {
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
    total: usage.totalTokens,
  };
}

/**
 * Our tool-call block from pi-ai's (drops pi-ai's streaming scratch fields).
 *
 * @example
 * fromPiToolCall({ type: "toolCall", id: "call_1", name: "ls", arguments: { path: "." } })
 */
export function fromPiToolCall(call: ToolCall): ModelToolCallBlock {
  return { type: "toolCall", id: call.id, name: call.name, arguments: (call.arguments ?? {}) as JsonObject };
}

/**
 * Our content blocks from a final pi-ai assistant message.
 *
 * @example
 * const content = fromPiContent(message);
 */
export function fromPiContent(message: AssistantMessage): AssistantBlock[] {
  return message.content.map((block): AssistantBlock => {
    if (block.type === "text") return { type: "text", text: block.text };
    if (block.type === "toolCall") return fromPiToolCall(block);
    if (!block.thinkingSignature) return { type: "reasoning", text: block.thinking };
    const signature = block.redacted ? REDACTED_SIGNATURE_PREFIX + block.thinkingSignature : block.thinkingSignature;
    return { type: "reasoning", text: block.thinking, signature };
  });
}
