/**
 * Anthropic Messages with the raw SSE frames of one request observed (SEC-6, OUT-6).
 *
 * pi-ai's `streamAnthropic` accepts an injected client (`AnthropicOptions.client`); its simple
 * variant drops that option. So a request whose frames are observed goes to `streamAnthropic`
 * with the thinking settings `streamSimpleAnthropic` would have derived (pi-ai 0.73.1
 * `providers/anthropic.js` and `simple-options.js`) and an Anthropic SDK client built for this
 * request alone, whose `fetch` hands the response's frames to the observer (wire-tap.ts). The
 * client is built as pi-ai builds it for an API key; an OAuth token (`sk-ant-oat…`) needs pi-ai's
 * own Claude Code identity handling, so such requests are not observed (provider-model.ts).
 */
import type { AnthropicOptions } from "@mariozechner/pi-ai/anthropic";
import type { AssistantMessageEvent, Context, Model, SimpleStreamOptions, ThinkingLevel } from "@mariozechner/pi-ai";
import type Anthropic from "@anthropic-ai/sdk";
import { observingFetch } from "./wire-tap.js";

type StreamAnthropic = (model: Model<"anthropic-messages">, context: Context, options?: AnthropicOptions) => AsyncIterable<AssistantMessageEvent>;

const INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14";
const BUDGETS: Record<Exclude<ThinkingLevel, "xhigh">, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384 };

/** Models that think adaptively (an effort, no budget), as pi-ai recognises them. */
const adaptive = (id: string): boolean => /(opus|sonnet)-4[.-]6|opus-4[.-]7/.test(id);

/** Whether requests with this key can be observed (an OAuth token keeps pi-ai's own client). */
export const observableAnthropicKey = (apiKey: string | undefined): boolean => !(apiKey ?? "").includes("sk-ant-oat");

/** pi-ai's `streamSimpleAnthropic` settings for thinking, without its client-dropping options copy. */
function thinkingOptions(model: Model<"anthropic-messages">, options: SimpleStreamOptions): Partial<AnthropicOptions> {
  const maxTokens = options.maxTokens ?? (model.maxTokens > 0 ? Math.min(model.maxTokens, 32_000) : undefined);
  if (!options.reasoning) return { thinkingEnabled: false, ...(maxTokens === undefined ? {} : { maxTokens }) };
  if (adaptive(model.id)) {
    const mapped = model.thinkingLevelMap?.[options.reasoning];
    const effort = typeof mapped === "string" ? mapped : options.reasoning === "minimal" ? "low" : options.reasoning === "xhigh" ? "high" : options.reasoning;
    return { thinkingEnabled: true, effort: effort as AnthropicOptions["effort"], ...(maxTokens === undefined ? {} : { maxTokens }) };
  }
  let budget = BUDGETS[options.reasoning === "xhigh" ? "high" : options.reasoning];
  const limit = Math.min((maxTokens ?? 0) + budget, model.maxTokens);
  if (limit <= budget) budget = Math.max(0, limit - 1024);
  return { thinkingEnabled: true, thinkingBudgetTokens: budget, maxTokens: limit };
}

/**
 * Streams one Anthropic request through pi-ai with `observe` receiving its raw SSE frames.
 *
 * @example
 * for await (const event of streamAnthropicObserved(streamAnthropic, Anthropic, model, context, options, (frame) => observer.frame(frame))) handle(event);
 */
export function streamAnthropicObserved(
  streamAnthropic: StreamAnthropic,
  AnthropicClient: typeof Anthropic,
  model: Model<"anthropic-messages">,
  context: Context,
  options: SimpleStreamOptions,
  observe: (frame: unknown) => void,
): AsyncIterable<AssistantMessageEvent> {
  // pi-ai asks for interleaved thinking on every non-adaptive model, thinking or not.
  const betas = adaptive(model.id) ? {} : { "anthropic-beta": INTERLEAVED_THINKING_BETA };
  const client = new AnthropicClient({
    apiKey: options.apiKey ?? null,
    // Explicit, or the SDK would add ANTHROPIC_AUTH_TOKEN from the environment as a bearer token.
    authToken: null,
    baseURL: model.baseUrl,
    dangerouslyAllowBrowser: true,
    defaultHeaders: { accept: "application/json", "anthropic-dangerous-direct-browser-access": "true", ...betas, ...model.headers, ...options.headers },
    fetch: observingFetch(observe),
  });
  const { reasoning: _reasoning, ...base } = options;
  return streamAnthropic(model, context, { ...base, ...thinkingOptions(model, options), client: client as unknown as AnthropicOptions["client"] });
}
