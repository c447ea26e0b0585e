/**
 * Lazy loading of the provider library (@mariozechner/pi-ai, an optional peer dependency).
 *
 * This is the ONLY module that imports it, and only through dynamic `import()` of the one
 * provider subpath a request needs: a host that injects its own ModelProvider, or never
 * streams, never loads pi-ai or the provider SDKs it pulls in. The `import type` lines below
 * are erased at compile time.
 */
import type { AssistantMessageEvent, Context, Model, SimpleStreamOptions } from "@mariozechner/pi-ai";
import { SteamharnessError } from "../../domain/errors.js";

/** The API kinds this adapter speaks, by pi-ai's own names. */
export type ProviderApiKind = "openai-responses" | "anthropic-messages" | "openai-completions";

/** Every supported API kind, for validation and documentation. */
export const PROVIDER_API_KINDS: readonly ProviderApiKind[] = ["openai-responses", "anthropic-messages", "openai-completions"];

/** pi-ai's "simple" stream function of one API kind (effort mapped per provider by pi-ai). */
export type PiStreamFunction = (
  model: Model<ProviderApiKind>,
  context: Context,
  options?: SimpleStreamOptions,
) => AsyncIterable<AssistantMessageEvent>;

const cache = new Map<ProviderApiKind, Promise<PiStreamFunction>>();

async function importStreamFunction(apiKind: ProviderApiKind): Promise<PiStreamFunction> {
  // Literal specifiers (not a computed string) so bundlers and type checking see each subpath.
  switch (apiKind) {
    case "openai-responses":
      return (await import("@mariozechner/pi-ai/openai-responses")).streamSimpleOpenAIResponses as PiStreamFunction;
    case "anthropic-messages":
      return (await import("@mariozechner/pi-ai/anthropic")).streamSimpleAnthropic as PiStreamFunction;
    case "openai-completions":
      return (await import("@mariozechner/pi-ai/openai-completions")).streamSimpleOpenAICompletions as PiStreamFunction;
  }
}

/**
 * Loads (once per API kind) pi-ai's stream function for `apiKind`. Rejects with a
 * SteamharnessError `unavailable` when the provider library is not installed.
 *
 * @example
 * const streamFn = await loadPiStreamFunction("anthropic-messages");
 */
export function loadPiStreamFunction(apiKind: ProviderApiKind): Promise<PiStreamFunction> {
  let pending = cache.get(apiKind);
  if (!pending) {
    pending = importStreamFunction(apiKind).catch((cause: unknown) => {
      cache.delete(apiKind); // a later `npm install` in the same process may fix it
      throw new SteamharnessError(
        "unavailable",
        "[steamharness] [providers] the provider library @mariozechner/pi-ai could not be loaded; install it (npm install @mariozechner/pi-ai) to use createProviderModel",
        { cause },
      );
    });
    cache.set(apiKind, pending);
  }
  return pending;
}
