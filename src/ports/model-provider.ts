import type { ModelPrice } from "../domain/budget/model-price.js";
import type { JsonObject } from "../domain/json.js";
import type { TokenCounts } from "./token-usage.js";

/** Content blocks of conversation messages, provider-neutral. */
export type ModelTextBlock = { type: "text"; text: string };
export type ModelReasoningBlock = { type: "reasoning"; text: string; signature?: string };
export type ModelToolCallBlock = { type: "toolCall"; id: string; name: string; arguments: JsonObject };

/**
 * Raw provider content kept for continuation only (OUT-10): an item of a provider's built-in tool
 * as it came on the wire (an OpenAI Responses `web_search_call` output item; an Anthropic
 * `server_tool_use` or `web_search_tool_result` block, encrypted content included). It is never
 * shown as output; the adapter of the API that produced it sends it back, before content block
 * `position` of its message, when the same model continues the conversation.
 */
export type ModelProviderItem = {
  api: "openai-responses" | "anthropic-messages";
  /** Index in the message's `content` before which the item came (`content.length`: after all). */
  position: number;
  item: JsonObject;
};

/** A message of the conversation sent to a model. */
export type ModelMessage =
  | { role: "user"; content: string | ModelTextBlock[] }
  | {
      role: "assistant";
      content: Array<ModelTextBlock | ModelReasoningBlock | ModelToolCallBlock>;
      provider?: string;
      model?: string;
      /** Hidden provider content of this answer, in wire order (OUT-10); never displayed. */
      providerItems?: ModelProviderItem[];
    }
  | { role: "toolResult"; toolCallId: string; toolName: string; content: ModelTextBlock[]; isError: boolean };

/** A tool as the model sees it: name, description, JSON Schema of its arguments. */
export interface ModelToolSpec {
  name: string;
  description: string;
  parameters: JsonObject;
}

/** One model request. `requestId` is stable for the same run and step (SES-3). */
export interface ModelRequest {
  requestId: string;
  systemPrompt?: string;
  messages: ModelMessage[];
  tools: ModelToolSpec[];
  /** Reasoning effort, when the model supports it. */
  effort?: "minimal" | "low" | "medium" | "high";
  /** Whether a built-in web search may be used (OUT-5). */
  webSearch?: boolean;
}

/** Why a response ended. `error` and `aborted` responses carry `errorMessage`. */
export type ModelStopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** The final message of a response. */
export interface ModelResponse {
  content: Array<ModelTextBlock | ModelReasoningBlock | ModelToolCallBlock>;
  usage: TokenCounts;
  stopReason: ModelStopReason;
  errorMessage?: string;
  /**
   * For `error`: whether a retry may succeed, and which kind of retry it is (OUT-3):
   * `dropped` (connection lost mid-stream), `recovery` (429/5xx), `length`, `lost-call`.
   */
  retry?: { retryable: boolean; kind: "dropped" | "recovery" | "length" | "lost-call"; status?: number };
  /**
   * Raw content of the provider's built-in tools in this response, in wire order (OUT-10): the
   * caller keeps it with the assistant message (`ModelMessage.providerItems`) and never shows it.
   */
  providerItems?: ModelProviderItem[];
}

/**
 * Streamed events of one response, in order. Deltas of one block share its `index`. The stream
 * always ends with exactly one `done` event (also for errors: `stopReason: "error"`); providers
 * report failure inside the stream, never by throwing mid-stream.
 */
export type ModelStreamEvent =
  | { type: "text_delta"; index: number; delta: string }
  | { type: "reasoning_delta"; index: number; delta: string }
  | { type: "toolcall_start"; index: number; id: string; name: string }
  | { type: "toolcall_delta"; index: number; delta: string }
  | { type: "toolcall_end"; index: number; toolCall: ModelToolCallBlock }
  /**
   * The provider's built-in web search (OUT-5): `completed` is one search (its query, the sources
   * it found, `error` when it failed); `cited` lists sources the answer cited that no search
   * listed. `position` is the index in the response's content before which it happened (default:
   * the blocks streamed so far).
   */
  | { type: "web_search"; status: "started" | "completed" | "cited"; query?: string; sources?: Array<{ url: string; title?: string }>; position?: number; error?: string }
  | { type: "done"; response: ModelResponse };

/** What a model is, for the payload and the context ring. */
export interface ModelDescriptor {
  provider: string;
  model: string;
  apiKind: "openai-responses" | "anthropic-messages" | "openai-completions" | "offline";
  /** Context window in tokens. */
  contextWindow: number;
  /** Whether `webSearch` is supported. */
  webSearch?: boolean;
  /** Output token limit per response, when known (a budget reserves it per call, BUD-2). */
  maxTokens?: number;
  /** Prices in USD per million tokens, when known (a configured entry's `price`, BUD-2). */
  price?: ModelPrice;
}

/**
 * The model-provider port. The agent loop talks only to this; the provider library is loaded
 * only by its adapter. `stream` never rejects: failures (HTTP errors, dropped connections,
 * aborts) arrive as a final `done` event with `stopReason` `error` or `aborted`.
 */
export interface ModelProvider {
  readonly descriptor: ModelDescriptor;
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent>;
}
