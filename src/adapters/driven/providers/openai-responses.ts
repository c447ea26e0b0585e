/**
 * OpenAI Responses through an `openai` client built for each request (SEC-6).
 *
 * pi-ai 0.73.1 builds its own OpenAI client inside `streamOpenAIResponses` (no client or `fetch`
 * can be injected) and its stream processor drops the events OUT-6 and OUT-7 need
 * (`web_search_call` items, `url_citation` annotations, `response.incomplete`). Reading them used
 * to take a process-wide `globalThis.fetch` patch; here the SDK's own event iterator yields every
 * event of this request alone: each goes to the request's observer, then becomes pi-ai's
 * AssistantMessageEvent exactly as pi-ai's `processResponsesStream` would emit it, so the
 * provider adapter treats all three APIs alike. pi-ai types are imported for type checking only.
 */
import type { AssistantMessage, AssistantMessageEvent, Context, Model, SimpleStreamOptions, StopReason, TextContent, ThinkingContent, ToolCall } from "@mariozechner/pi-ai";
import type OpenAI from "openai";
import { responsesBody } from "./openai-responses-input.js";

type Json = Record<string, any>;
type Block = TextContent | ThinkingContent | ToolCall;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;

function parseArguments(json: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(json === "" ? "{}" : json);
    return isObject(parsed) && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function usageOf(raw: unknown): AssistantMessage["usage"] | null {
  if (!isObject(raw)) return null;
  const cached = Number(raw.input_tokens_details?.cached_tokens ?? 0);
  const input = Number(raw.input_tokens ?? 0);
  const output = Number(raw.output_tokens ?? 0);
  return {
    input: input - cached,
    output,
    cacheRead: cached,
    cacheWrite: 0,
    totalTokens: Number(raw.total_tokens ?? input + output),
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** Turns the SDK's events into pi-ai's, keeping the message being built in `output`. */
function eventTranslator(output: AssistantMessage) {
  let current: Block | null = null;
  let partialJson = "";
  const at = (): number => output.content.length - 1;
  const open = (block: Block): number => {
    current = block;
    output.content.push(block);
    return at();
  };
  return function* translate(event: Json): Generator<AssistantMessageEvent> {
    const item: Json = isObject(event.item) ? event.item : {};
    const block = current as Block | null;
    switch (event.type) {
      case "response.output_item.added":
        if (item.type === "reasoning") yield { type: "thinking_start", contentIndex: open({ type: "thinking", thinking: "" }), partial: output };
        else if (item.type === "message") yield { type: "text_start", contentIndex: open({ type: "text", text: "" }), partial: output };
        else if (item.type === "function_call") {
          partialJson = typeof item.arguments === "string" ? item.arguments : "";
          const call: ToolCall = { type: "toolCall", id: `${item.call_id}|${item.id}`, name: String(item.name), arguments: {} };
          yield { type: "toolcall_start", contentIndex: open(call), partial: output };
        }
        return;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
      case "response.reasoning_summary_part.done": {
        if (block?.type !== "thinking") return;
        const delta = event.type === "response.reasoning_summary_part.done" ? "\n\n" : String(event.delta ?? "");
        block.thinking += delta;
        yield { type: "thinking_delta", contentIndex: at(), delta, partial: output };
        return;
      }
      case "response.output_text.delta":
      case "response.refusal.delta":
        if (block?.type !== "text") return;
        block.text += String(event.delta ?? "");
        yield { type: "text_delta", contentIndex: at(), delta: String(event.delta ?? ""), partial: output };
        return;
      case "response.function_call_arguments.delta":
        if (block?.type !== "toolCall") return;
        partialJson += String(event.delta ?? "");
        yield { type: "toolcall_delta", contentIndex: at(), delta: String(event.delta ?? ""), partial: output };
        return;
      case "response.function_call_arguments.done": {
        if (block?.type !== "toolCall" || typeof event.arguments !== "string") return;
        const rest = event.arguments.startsWith(partialJson) ? event.arguments.slice(partialJson.length) : "";
        partialJson = event.arguments;
        if (rest !== "") yield { type: "toolcall_delta", contentIndex: at(), delta: rest, partial: output };
        return;
      }
      case "response.output_item.done":
        if (item.type === "reasoning" && block?.type === "thinking") {
          const texts = (parts: unknown) => (Array.isArray(parts) ? parts.map((part: Json) => String(part?.text ?? "")).join("\n\n") : "");
          block.thinking = texts(item.summary) || texts(item.content) || block.thinking;
          block.thinkingSignature = JSON.stringify(item);
          current = null;
          yield { type: "thinking_end", contentIndex: at(), content: block.thinking, partial: output };
        } else if (item.type === "message" && block?.type === "text") {
          if (Array.isArray(item.content)) block.text = item.content.map((part: Json) => String(part?.type === "refusal" ? part.refusal : part?.text ?? "")).join("");
          current = null;
          yield { type: "text_end", contentIndex: at(), content: block.text, partial: output };
        } else if (item.type === "function_call") {
          const json = block?.type === "toolCall" && partialJson !== "" ? partialJson : String(item.arguments ?? "");
          const call: ToolCall = block?.type === "toolCall" ? block : { type: "toolCall", id: `${item.call_id}|${item.id}`, name: String(item.name), arguments: {} };
          call.arguments = parseArguments(json);
          current = null;
          yield { type: "toolcall_end", contentIndex: at(), toolCall: call, partial: output };
        }
        return;
      case "response.completed":
      case "response.incomplete": {
        const response: Json = isObject(event.response) ? event.response : {};
        output.usage = usageOf(response.usage) ?? output.usage;
        if (response.status === "failed" || response.status === "cancelled") throw new Error("An unknown error occurred");
        // OUT-7: only an answer cut at the output limit is `length` (then retried with more room).
        const cut = event.type === "response.incomplete" && response.incomplete_details?.reason === "max_output_tokens";
        output.stopReason = cut ? "length" : output.content.some((part) => part.type === "toolCall") ? "toolUse" : "stop";
        return;
      }
      case "error":
        throw new Error(`Error Code ${event.code}: ${event.message}`);
      case "response.failed": {
        const error = event.response?.error;
        const reason = event.response?.incomplete_details?.reason;
        throw new Error(error ? `${error.code || "unknown"}: ${error.message || "no message"}` : reason ? `incomplete: ${reason}` : "Unknown error (no error details in response)");
      }
    }
  };
}

/**
 * Streams one Responses request as pi-ai's events (same signature as pi-ai's stream functions).
 * `observe` receives every raw event of this request, before it is translated. Never throws:
 * failures end the stream with an `error` event, as pi-ai's do.
 *
 * @example
 * for await (const event of streamResponses(OpenAI, model, context, { apiKey, signal }, (raw) => observer.frame(raw))) handle(event);
 */
export async function* streamResponses(
  OpenAIClient: typeof OpenAI,
  model: Model<"openai-responses">,
  context: Context,
  options: SimpleStreamOptions = {},
  observe?: (event: unknown) => void,
): AsyncGenerator<AssistantMessageEvent> {
  const output: AssistantMessage = {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: Date.now(),
  };
  try {
    // Every setting explicit: the SDK would otherwise read OPENAI_ORG_ID / OPENAI_PROJECT_ID.
    const client = new OpenAIClient({
      apiKey: options.apiKey ?? "",
      organization: null,
      project: null,
      baseURL: model.baseUrl,
      dangerouslyAllowBrowser: true,
      defaultHeaders: { ...model.headers, ...options.headers },
    });
    let body = responsesBody(model, context, { ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}), ...(options.reasoning ? { reasoning: options.reasoning } : {}) });
    const changed = await options.onPayload?.(body, model);
    if (changed !== undefined) body = changed as typeof body;
    const stream = await client.responses.create(body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    });
    yield { type: "start", partial: output };
    const translate = eventTranslator(output);
    for await (const event of stream as AsyncIterable<unknown>) {
      if (!isObject(event)) continue;
      observe?.(event);
      yield* translate(event);
    }
    if (options.signal?.aborted) throw new Error("Request was aborted");
    yield { type: "done", reason: output.stopReason as Extract<StopReason, "stop" | "length" | "toolUse">, message: output };
  } catch (error) {
    output.stopReason = options.signal?.aborted ? "aborted" : "error";
    output.errorMessage = error instanceof Error ? error.message : JSON.stringify(error);
    yield { type: "error", reason: output.stopReason, error: output };
  }
}
