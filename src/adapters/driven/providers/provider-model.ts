/**
 * The model-provider adapter over the provider library @mariozechner/pi-ai and the SDKs it
 * brings: one factory for the OpenAI Responses, Anthropic Messages and OpenAI Chat Completions
 * APIs, with an explicit endpoint and key. They are loaded lazily on the first request (see
 * pi-ai-loader.ts, which also says which API goes through which client; docs/providers.md).
 */
import type { AssistantMessage, Model, SimpleStreamOptions } from "@mariozechner/pi-ai";
import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonObject } from "../../../domain/json.js";
import type {
  ModelDescriptor,
  ModelProvider,
  ModelProviderItem,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
} from "../../../ports/model-provider.js";
import { loadPiStreamFunction, type ProviderApiKind } from "./pi-ai-loader.js";
import { fromPiContent, fromPiToolCall, fromPiUsage, toPiContext } from "./pi-ai-mapping.js";
import { markAnthropicItems } from "./provider-items.js";
import { classifyProviderFailure } from "./provider-failures.js";
import { webSearchObserver, withWebSearchTool, type WebSearchObservation } from "./web-search-wire.js";
import { type ProviderConfig, type ProviderModelOptions, validateProviderModelOptions } from "./provider-options.js";

export { PROVIDER_API_KINDS, type ProviderApiKind } from "./pi-ai-loader.js";

export type { ProviderModelOptions } from "./provider-options.js";

function errorResponse(message: AssistantMessage | undefined, errorMessage: string, streamStarted: boolean, aborted: boolean, indices?: ReturnType<typeof blockIndices>): ModelResponse {
  const response: ModelResponse = {
    content: message ? (indices ? indices.content(message) : fromPiContent(message)) : [],
    usage: message ? fromPiUsage(message.usage) : { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    stopReason: aborted ? "aborted" : "error",
    errorMessage,
  };
  if (!aborted) response.retry = classifyProviderFailure({ message: errorMessage, streamStarted });
  return response;
}

function toPiModel(config: ProviderConfig): Model<ProviderApiKind> {
  return {
    id: config.model,
    name: config.model,
    api: config.apiKind,
    provider: config.provider,
    baseUrl: config.baseUrl,
    reasoning: config.reasoning,
    // Without a requested effort, send no effort at all (the model's default) rather than
    // pi-ai's "none", which older reasoning models reject with HTTP 400.
    ...(config.reasoning ? { thinkingLevelMap: { off: null } } : {}),
    input: ["text"],
    // Cost is not ours to compute: billing is by token counts (TokenUsageRecorder).
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: config.contextWindow,
    maxTokens: config.maxTokens,
  };
}

/**
 * Port indices of pi-ai's content blocks. Anthropic splits a cited answer into one text block per
 * cited passage; adjacent text blocks with no search between them are one block of ours, so the
 * answer stays one text part (OUT-2). Other APIs keep pi-ai's blocks as they are.
 */
function blockIndices(apiKind: ProviderApiKind) {
  const portOf: number[] = [];
  const types: string[] = [];
  let count = 0;
  let searchSinceLast = false;
  return {
    /** Assigns the port index of pi-ai block `index` when it starts. */
    start(index: number, type: string): void {
      const merge = apiKind === "anthropic-messages" && type === "text" && index > 0 && types[index - 1] === "text" && !searchSinceLast;
      portOf[index] = merge ? portOf[index - 1]! : count++;
      types[index] = type;
      searchSinceLast = false;
    },
    of(index: number): number {
      if (portOf[index] === undefined) this.start(index, "other");
      return portOf[index]!;
    },
    /** A search sits here: the next text block starts a new one; returns its port position. */
    search(): number {
      searchSinceLast = true;
      return count;
    },
    content(message: AssistantMessage): ModelResponse["content"] {
      const blocks = fromPiContent(message);
      const merged: ModelResponse["content"] = [];
      const placed = new Map<number, number>();
      for (const [index, block] of blocks.entries()) {
        const port = portOf[index];
        const at = port === undefined ? undefined : placed.get(port);
        const previous = at === undefined ? undefined : merged[at];
        if (previous?.type === "text" && block.type === "text") previous.text += block.text;
        else {
          if (port !== undefined) placed.set(port, merged.length);
          merged.push(block.type === "text" ? { ...block } : block);
        }
      }
      return merged;
    },
  };
}

async function* streamResponse(config: ProviderConfig, request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelStreamEvent> {
  if (signal?.aborted) {
    yield { type: "done", response: errorResponse(undefined, "Request was aborted", false, true) };
    return;
  }
  // Our own controller: aborted when the caller aborts, and when the consumer stops iterating
  // early, so an abandoned HTTP stream never keeps running.
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  let finished = false;
  let streamStarted = false;
  const openBlocks = new Set<number>();
  const indices = blockIndices(config.apiKind);
  // Native web search (OUT-6): pi-ai sends the tool (onPayload) but drops the search events, so
  // the raw events of this request are read on the side (SEC-6: through a client built for this
  // request, see pi-ai-loader.ts) and the searches placed in order here.
  const observed: WebSearchObservation[] = [];
  const observer = config.webSearch && request.webSearch === true ? webSearchObserver(config.apiKind, (observation) => observed.push(observation)) : null;
  // The searches' raw items, kept hidden with the answer for the next turn (OUT-10).
  const providerItems: ModelProviderItem[] = [];
  const searchesBefore = function* (index: number): Generator<ModelStreamEvent> {
    while (observed.length > 0 && observed[0]!.position <= index) {
      const { kind, query, sources, error, raw } = observed.shift()!;
      const position = indices.search();
      if (config.apiKind !== "openai-completions") for (const item of raw ?? []) providerItems.push({ api: config.apiKind, position, item: item as JsonObject });
      yield {
        type: "web_search",
        status: kind === "cited" ? "cited" : "completed",
        position,
        sources,
        ...(query === undefined ? {} : { query }),
        ...(error === undefined ? {} : { error }),
      };
    }
  };
  try {
    const streamFn = await loadPiStreamFunction(config.apiKind);
    const options: SimpleStreamOptions = {
      apiKey: config.apiKey,
      signal: controller.signal,
      maxRetries: config.maxRetries,
      maxTokens: config.maxTokens,
      // SDK headers set to null are removed (see provider-options.ts); pi-ai passes them through.
      headers: { ...config.headers } as Record<string, string>,
    };
    if (config.timeoutMs !== undefined) options.timeoutMs = config.timeoutMs;
    if (config.reasoning && request.effort) options.reasoning = request.effort;
    let context = toPiContext(request, { api: config.apiKind, provider: config.provider, model: config.model });
    let restore = (payload: unknown): unknown => payload;
    if (config.apiKind === "anthropic-messages" && observer) {
      // Anthropic's search blocks go back only with the search tool declared; on a turn without
      // it they are left out (the answer's text stays), so a request never names a tool it lacks.
      ({ context, restore } = markAnthropicItems(context));
    }
    if (observer) options.onPayload = (payload) => withWebSearchTool(config.apiKind, restore(payload));
    for await (const event of streamFn(toPiModel(config), context, options, observer ? (frame) => observer.frame(frame) : undefined)) {
      if ("contentIndex" in event) yield* searchesBefore(event.contentIndex);
      switch (event.type) {
        case "start":
          streamStarted = true;
          break;
        case "text_delta":
          if (event.delta) yield { type: "text_delta", index: indices.of(event.contentIndex), delta: event.delta };
          break;
        case "thinking_delta":
          if (event.delta) yield { type: "reasoning_delta", index: indices.of(event.contentIndex), delta: event.delta };
          break;
        case "toolcall_start": {
          openBlocks.add(event.contentIndex);
          indices.start(event.contentIndex, "toolCall");
          const block = event.partial.content[event.contentIndex];
          const id = block?.type === "toolCall" ? block.id : "";
          const name = block?.type === "toolCall" ? block.name : "";
          yield { type: "toolcall_start", index: indices.of(event.contentIndex), id, name };
          break;
        }
        case "toolcall_delta":
          if (event.delta) yield { type: "toolcall_delta", index: indices.of(event.contentIndex), delta: event.delta };
          break;
        case "toolcall_end":
          openBlocks.delete(event.contentIndex);
          yield { type: "toolcall_end", index: indices.of(event.contentIndex), toolCall: fromPiToolCall(event.toolCall) };
          break;
        case "text_start":
        case "thinking_start":
          openBlocks.add(event.contentIndex);
          indices.start(event.contentIndex, event.type === "text_start" ? "text" : "thinking");
          break;
        case "text_end":
        case "thinking_end":
          openBlocks.delete(event.contentIndex);
          break;
        case "done":
          finished = true;
          yield* searchesBefore(Number.POSITIVE_INFINITY);
          if (openBlocks.size > 0) {
            // The body ended cleanly in the middle of a block (a proxy closing the stream): pi-ai
            // reports success, but the text or tool arguments are cut short.
            const message = "provider stream ended before the response was complete";
            yield { type: "done", response: errorResponse(event.message, message, streamStarted, false, indices) };
            return;
          }
          yield {
            type: "done",
            response: {
              content: indices.content(event.message),
              usage: fromPiUsage(event.message.usage),
              stopReason: event.reason,
              ...(providerItems.length > 0 ? { providerItems } : {}),
            },
          };
          return;
        case "error": {
          finished = true;
          yield* searchesBefore(Number.POSITIVE_INFINITY);
          const message = event.error.errorMessage ?? "unknown provider error";
          const aborted = event.reason === "aborted" || signal?.aborted === true;
          yield { type: "done", response: errorResponse(event.error, message, streamStarted, aborted, indices) };
          return;
        }
        default:
          break;
      }
    }
    finished = true;
    yield { type: "done", response: errorResponse(undefined, "provider stream ended before its result", streamStarted, controller.signal.aborted) };
  } catch (error) {
    // The stream contract: failures arrive as the final event, never as a rejection.
    finished = true;
    const message = error instanceof Error ? error.message : String(error);
    const response = errorResponse(undefined, message, streamStarted, controller.signal.aborted);
    if (response.retry && error instanceof SteamharnessError) response.retry = { retryable: false, kind: "recovery" };
    yield { type: "done", response };
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!finished) controller.abort();
  }
}

/**
 * A ModelProvider that talks to an OpenAI Responses, Anthropic Messages or OpenAI Chat
 * Completions endpoint through @mariozechner/pi-ai and the SDKs it brings (optional peer
 * dependencies, loaded on the first request; no global such as `fetch` is ever patched). The key must be passed explicitly: OPENAI_API_KEY / ANTHROPIC_API_KEY and
 * similar variables are never read. Failures, HTTP errors and aborts end the stream with one
 * `done` event (`stopReason` `error` with a `retry` classification, or `aborted`); the SDKs'
 * own retries are off by default so that the agent loop's retries are the only ones.
 *
 * Throws SteamharnessError `input_validation` (with `field`) for a missing key, URL or model.
 *
 * @example
 * const model = createProviderModel({
 *   apiKind: "openai-responses",
 *   baseUrl: "https://api.openai.com/v1",
 *   apiKey: myKey,
 *   model: "gpt-5-mini",
 *   reasoning: true,
 * });
 * for await (const event of model.stream({ requestId: "r1", messages: [{ role: "user", content: "Hi" }], tools: [] })) {
 *   if (event.type === "text_delta") process.stdout.write(event.delta);
 * }
 */
export function createProviderModel(options: ProviderModelOptions): ModelProvider {
  const config = validateProviderModelOptions(options);
  const descriptor: ModelDescriptor = {
    provider: config.provider,
    model: config.model,
    apiKind: config.apiKind,
    contextWindow: config.contextWindow,
    webSearch: config.webSearch,
    maxTokens: config.maxTokens,
    ...(options.price ? { price: { ...options.price } } : {}),
  };
  return {
    descriptor,
    stream: (request, signal) => streamResponse(config, request, signal),
  };
}
