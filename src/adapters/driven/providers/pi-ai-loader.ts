/**
 * Lazy loading of the provider library (@mariozechner/pi-ai, an optional peer dependency) and of
 * the two SDKs it brings (`openai`, `@anthropic-ai/sdk`), which the adapter uses directly to read
 * the raw events of one request (SEC-6: OpenAI Responses through an `openai` client of its own,
 * an Anthropic request with a web-search observer through an injected Anthropic client).
 *
 * This is the ONLY module that imports them, and only through dynamic `import()` of what a
 * request needs: a host that injects its own ModelProvider, or never streams, never loads pi-ai
 * or the SDKs. The `import type` lines below are erased at compile time.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { AssistantMessageEvent, Context, Model, SimpleStreamOptions } from "@mariozechner/pi-ai";
import { SteamharnessError } from "../../../domain/errors.js";
import { observableAnthropicKey, streamAnthropicObserved } from "./anthropic-observed.js";
import { streamResponses } from "./openai-responses.js";

/** The API kinds this adapter speaks, by pi-ai's own names. */
export type ProviderApiKind = "openai-responses" | "anthropic-messages" | "openai-completions";

/** Every supported API kind, for validation and documentation. */
export const PROVIDER_API_KINDS: readonly ProviderApiKind[] = ["openai-responses", "anthropic-messages", "openai-completions"];

/**
 * The stream function of one API kind: pi-ai's "simple" signature (effort mapped per provider),
 * plus `observe`, which receives the raw provider events of this request only (the JSON data of
 * each SSE frame, in order, before they are translated). Chat Completions never observes.
 */
export type PiStreamFunction = (
  model: Model<ProviderApiKind>,
  context: Context,
  options?: SimpleStreamOptions,
  observe?: (event: unknown) => void,
) => AsyncIterable<AssistantMessageEvent>;

const cache = new Map<ProviderApiKind, Promise<PiStreamFunction>>();

function unavailable(what: string, cause: unknown): SteamharnessError {
  return new SteamharnessError(
    "unavailable",
    `[steamharness] [providers] ${what} could not be loaded; install @mariozechner/pi-ai (npm install @mariozechner/pi-ai) to use createProviderModel`,
    { cause },
  );
}

async function load<T>(what: string, importer: () => Promise<T>): Promise<T> {
  try {
    return await importer();
  } catch (cause) {
    throw unavailable(what, cause);
  }
}

const PI_AI = "the provider library @mariozechner/pi-ai";

async function importStreamFunction(apiKind: ProviderApiKind): Promise<PiStreamFunction> {
  // Literal specifiers (not a computed string) so bundlers and type checking see each module.
  switch (apiKind) {
    case "openai-responses": {
      const { default: OpenAI } = await load("the OpenAI SDK `openai` (a dependency of @mariozechner/pi-ai)", () => import("openai"));
      return (model, context, options, observe) => streamResponses(OpenAI, model as Model<"openai-responses">, context, options, observe);
    }
    case "anthropic-messages": {
      const pi = await load(PI_AI, () => import("@mariozechner/pi-ai/anthropic"));
      const sdk = (): Promise<typeof Anthropic> =>
        load("the Anthropic SDK `@anthropic-ai/sdk` (a dependency of @mariozechner/pi-ai)", async () => (await import("@anthropic-ai/sdk")).default);
      return (model, context, options = {}, observe) => {
        const anthropic = model as Model<"anthropic-messages">;
        if (!observe || !observableAnthropicKey(options.apiKey)) return pi.streamSimpleAnthropic(anthropic, context, options);
        return (async function* () {
          yield* streamAnthropicObserved(pi.streamAnthropic, await sdk(), anthropic, context, options, observe);
        })();
      };
    }
    case "openai-completions": {
      const pi = await load(PI_AI, () => import("@mariozechner/pi-ai/openai-completions"));
      return (model, context, options) => pi.streamSimpleOpenAICompletions(model as Model<"openai-completions">, context, options);
    }
  }
}

/**
 * Loads (once per API kind) the stream function for `apiKind`. Rejects with a
 * SteamharnessError `unavailable` when the provider library (or an SDK it brings) is not installed.
 *
 * @example
 * const streamFn = await loadPiStreamFunction("anthropic-messages");
 */
export function loadPiStreamFunction(apiKind: ProviderApiKind): Promise<PiStreamFunction> {
  let pending = cache.get(apiKind);
  if (!pending) {
    pending = importStreamFunction(apiKind).catch((error: unknown) => {
      cache.delete(apiKind); // a later `npm install` in the same process may fix it
      throw error;
    });
    cache.set(apiKind, pending);
  }
  return pending;
}

/**
 * A model's prices from the provider library's model metadata (`cost`, USD per million tokens),
 * or null when the library does not know the provider and model or lists it at no cost. Loads
 * the library's root (its model catalog) on first use: only money budgets without a configured
 * price ask (BUD-2).
 *
 * @example
 * await catalogModelPrice("openai", "gpt-4o-mini"); // { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0 }
 */
export async function catalogModelPrice(provider: string, model: string): Promise<{ input: number; output: number; cacheRead: number; cacheWrite: number } | null> {
  const pi = await load(PI_AI, () => import("@mariozechner/pi-ai"));
  let models: ReadonlyArray<{ id: string; cost?: { input: number; output: number; cacheRead: number; cacheWrite: number } }>;
  try {
    models = pi.getModels(provider as Parameters<typeof pi.getModels>[0]);
  } catch {
    return null;
  }
  const cost = models?.find((entry) => entry.id === model)?.cost;
  return cost && cost.input + cost.output > 0 ? { input: cost.input, output: cost.output, cacheRead: cost.cacheRead, cacheWrite: cost.cacheWrite } : null;
}
