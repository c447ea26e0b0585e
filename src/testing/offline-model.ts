import type { JsonObject } from "../domain/json.js";
import type {
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  ModelToolCallBlock,
} from "../ports/model-provider.js";
import type { TokenCounts } from "../ports/token-usage.js";

/** One scripted model response. */
export interface OfflineStep {
  /** Answer text, streamed in small deltas. */
  text?: string;
  /** Reasoning text, streamed before the answer. */
  reasoning?: string;
  /** Tool calls the model makes; ids default to `call_<step>_<n>`. */
  toolCalls?: Array<{ id?: string; name: string; arguments: JsonObject }>;
  /** Usage of the response; missing counts default from the text lengths. */
  usage?: Partial<TokenCounts>;
  /** Makes the response fail (retryably) instead; the same step is served again on the next request. */
  error?: { message: string; kind: "dropped" | "recovery" | "length" | "lost-call"; status?: number; retryable?: boolean };
  /** Text after the tool calls (in plan mode the runtime makes the text after the last tool call the plan, OUT-4). */
  plan?: string;
  /** `length`: the response stops at the output token limit (an answer, or a tool call, cut short; OUT-7). */
  stop?: "length";
}

/** Options of {@link createOfflineModel}. */
export interface OfflineModelOptions {
  /**
   * The script. With an array, the step served is the number of assistant messages already in
   * the request, so a resumed run in another process continues at the right step.
   */
  steps: OfflineStep[] | ((request: ModelRequest) => OfflineStep);
  contextWindow?: number;
  provider?: string;
  model?: string;
  /** Characters per text delta (default 8). */
  chunkSize?: number;
}

/** An offline model plus the requests it received, in order. */
export type OfflineModel = ModelProvider & { calls: ModelRequest[] };

const countTokens = (text: string): number => Math.ceil(text.length / 4);

function pickStep(options: OfflineModelOptions, request: ModelRequest, failures: Map<number, number>): { step: OfflineStep; index: number } {
  if (typeof options.steps === "function") return { step: options.steps(request), index: -1 };
  const index = request.messages.filter((message) => message.role === "assistant").length;
  const step = options.steps[index];
  if (!step) return { step: { text: "(offline model: script exhausted)" }, index };
  // An erroring step fails once per scripted error, then serves its success content.
  if (step.error && (failures.get(index) ?? 0) === 0) {
    failures.set(index, 1);
    return { step, index };
  }
  return { step: { ...step, error: undefined }, index };
}

function chunks(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

/**
 * A scripted model that implements the model-provider port directly, without any provider
 * library: for tests, the demo and benchmarks. It never touches the network.
 *
 * @example
 * const model = createOfflineModel({ steps: [
 *   { toolCalls: [{ name: "ls", arguments: { path: "." } }] },
 *   { text: "The folder holds two files." },
 * ] });
 */
export function createOfflineModel(options: OfflineModelOptions): OfflineModel {
  const calls: ModelRequest[] = [];
  const failures = new Map<number, number>();
  const chunkSize = options.chunkSize ?? 8;
  return {
    calls,
    descriptor: {
      provider: options.provider ?? "offline",
      model: options.model ?? "offline-scripted",
      apiKind: "offline",
      contextWindow: options.contextWindow ?? 128_000,
      webSearch: false,
    },
    async *stream(request, signal): AsyncIterable<ModelStreamEvent> {
      calls.push(request);
      const { step, index } = pickStep(options, request, failures);
      const zero: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
      if (signal?.aborted) {
        yield { type: "done", response: { content: [], usage: zero, stopReason: "aborted", errorMessage: "aborted" } };
        return;
      }
      if (step.error) {
        const response: ModelResponse = {
          content: [],
          usage: zero,
          stopReason: "error",
          errorMessage: step.error.message,
          retry: { retryable: step.error.retryable ?? true, kind: step.error.kind, ...(step.error.status ? { status: step.error.status } : {}) },
        };
        yield { type: "done", response };
        return;
      }
      const content: ModelResponse["content"] = [];
      let blockIndex = 0;
      if (step.reasoning) {
        for (const delta of chunks(step.reasoning, chunkSize)) yield { type: "reasoning_delta", index: blockIndex, delta };
        content.push({ type: "reasoning", text: step.reasoning });
        blockIndex++;
      }
      if (step.text) {
        for (const delta of chunks(step.text, chunkSize)) yield { type: "text_delta", index: blockIndex, delta };
        content.push({ type: "text", text: step.text });
        blockIndex++;
      }
      for (const [n, call] of (step.toolCalls ?? []).entries()) {
        const toolCall: ModelToolCallBlock = { type: "toolCall", id: call.id ?? `call_${index}_${n}`, name: call.name, arguments: call.arguments };
        yield { type: "toolcall_start", index: blockIndex, id: toolCall.id, name: toolCall.name };
        for (const delta of chunks(JSON.stringify(call.arguments), chunkSize * 2)) yield { type: "toolcall_delta", index: blockIndex, delta };
        yield { type: "toolcall_end", index: blockIndex, toolCall };
        content.push(toolCall);
        blockIndex++;
      }
      if (step.plan) {
        for (const delta of chunks(step.plan, chunkSize)) yield { type: "text_delta", index: blockIndex, delta };
        content.push({ type: "text", text: step.plan });
      }
      const promptTokens = countTokens(JSON.stringify(request.messages)) + countTokens(request.systemPrompt ?? "");
      const outputTokens = countTokens(`${step.reasoning ?? ""}${step.text ?? ""}${step.plan ?? ""}${JSON.stringify(step.toolCalls ?? [])}`);
      const usage: TokenCounts = {
        input: step.usage?.input ?? promptTokens,
        output: step.usage?.output ?? outputTokens,
        cacheRead: step.usage?.cacheRead ?? 0,
        cacheWrite: step.usage?.cacheWrite ?? 0,
        total: 0,
      };
      usage.total = step.usage?.total ?? usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
      const hasCalls = (step.toolCalls ?? []).length > 0;
      yield { type: "done", response: { content, usage, stopReason: step.stop ?? (hasCalls ? "toolUse" : "stop") } };
    },
  };
}
