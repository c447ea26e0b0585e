import type { HarnessRuntime } from "../../ports/runtime.js";
import { SteamharnessError } from "../../domain/errors.js";
import type { AgentConfigurationSnapshot, AgentModelEntry, AgentModelSelection } from "../../domain/agent/model-selection.js";
import type { JsonObject, JsonValue } from "../../domain/json.js";
import type { ModelProvider } from "../../ports/model-provider.js";
import type { AgentModelAttributes } from "./types.js";

const DEFAULT_BASE_URL = {
  "openai-responses": "https://api.openai.com/v1",
  "openai-completions": "https://api.openai.com/v1",
  "anthropic-messages": "https://api.anthropic.com",
} as const;

/**
 * The injected model set as a map by id (a single model is keyed by its descriptor's model).
 *
 * @example
 * injectedModels({ fast, slow })?.get("fast")
 */
export function injectedModels(models: ModelProvider | Record<string, ModelProvider> | undefined): Map<string, ModelProvider> | undefined {
  if (models === undefined) return undefined;
  if (typeof (models as ModelProvider).stream === "function" && (models as ModelProvider).descriptor) {
    const single = models as ModelProvider;
    return new Map([[single.descriptor.model, single]]);
  }
  return new Map(Object.entries(models as Record<string, ModelProvider>));
}

/**
 * Turns a model selection into a provider. Configured and explicit models go through the provider
 * adapter (loaded lazily, so hosts that inject models never load the provider library), with the
 * key given explicitly: a key in the environment is never used.
 *
 * @example
 * const model = await resolveModel(selection, injected, attributes);
 */
export async function resolveModel(
  selection: AgentModelSelection,
  injected: Map<string, ModelProvider> | undefined,
  attributes: AgentModelAttributes | undefined,
  runtime: HarnessRuntime,
): Promise<ModelProvider> {
  if (selection.source === "injected") {
    const model = injected?.get(selection.id);
    if (!model) throw new SteamharnessError("not_found", `injected model "${selection.id}" is not available`, { field: "model" });
    return model;
  }
  const connection = selection.source === "explicit" ? selection : selection.entry;
  if (!connection.apiKey) throw missingKey(selection);
  // The node's modelAttributes win over the capability flags of a configured entry.
  const entry = selection.source === "configured" ? selection.entry : undefined;
  const contextWindow = attributes?.contextWindow ?? entry?.contextWindow;
  const webSearch = attributes?.webSearch ?? entry?.webSearch;
  const maxTokens = attributes?.maxTokens ?? entry?.maxTokens;
  const reasoning = attributes?.reasoning ?? entry?.reasoning;
  return runtime.providerModel({
    apiKind: connection.apiKind,
    baseUrl: connection.baseUrl ?? DEFAULT_BASE_URL[connection.apiKind],
    apiKey: connection.apiKey,
    model: connection.model,
    provider: connection.provider,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(webSearch === undefined ? {} : { webSearch }),
    ...(entry?.price ? { price: entry.price } : {}),
  });
}

/**
 * The missing-key error, saying where the key comes from: an explicit endpoint takes `apiKey`
 * (the library never reads a key from the environment by itself); a configured entry gets its key
 * from the variable its `apiKeyRef` names, which the host resolves (`steamharness chat` and
 * `gateway` from their environment) — the same words as the chat banner's warning.
 */
function missingKey(selection: Exclude<AgentModelSelection, { source: "injected" }>): SteamharnessError {
  if (selection.source === "explicit") {
    return new SteamharnessError("input_validation", `model ${selection.model} has no API key: give apiKey explicitly (the library never reads keys from the environment itself)`, { field: "apiKey" });
  }
  const { entry } = selection;
  const ref = entry.apiKeyRef;
  const how = ref ? `set the environment variable ${ref} (its apiKeyRef) where the host runs` : "give the entry an apiKeyRef naming the environment variable that holds the key, and set that variable";
  return new SteamharnessError("input_validation", `model ${entry.provider}/${entry.model} (entry "${entry.id}" of STEAMHARNESS_AGENT_MODELS) has no API key: ${how}`, { field: "apiKey" });
}

/**
 * A configuration snapshot as saved with a run: API keys are removed (the session log never holds
 * secrets); a resumed run takes keys from the current configuration by entry id.
 *
 * @example
 * const saved = redactConfiguration(snapshot);
 */
export function redactConfiguration(snapshot: AgentConfigurationSnapshot | undefined): JsonObject | null {
  if (snapshot === undefined) return null;
  const strip = (value: JsonValue): JsonValue => {
    if (Array.isArray(value)) return value.map(strip);
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).filter(([key]) => key !== "apiKey").map(([key, item]) => [key, strip(item)]));
    }
    return value;
  };
  return strip(JSON.parse(JSON.stringify(snapshot)) as JsonValue) as JsonObject;
}

/**
 * Puts API keys back into a saved snapshot's selection from the current configuration, by
 * entry id: the saved entry is looked up among the current entries (not the entry the current
 * configuration would pick now), so a resumed run keeps its key when the list was reordered.
 *
 * @example
 * const selection = restoreKey(savedSelection, readAgentModels(configuration).entries, options.apiKey);
 */
export function restoreKey(saved: AgentModelSelection, currentEntries: readonly AgentModelEntry[] | null, explicitKey: string | undefined): AgentModelSelection {
  if (saved.source === "explicit") return explicitKey === undefined ? saved : { ...saved, apiKey: explicitKey };
  if (saved.source === "configured" && !saved.entry.apiKey) {
    const current = currentEntries?.find((entry) => entry.id === saved.entry.id);
    if (current?.apiKey) return { ...saved, entry: { ...saved.entry, apiKey: current.apiKey } };
  }
  return saved;
}
