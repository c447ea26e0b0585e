/**
 * The composition root's model provider: loaded lazily, so a host that injects its own
 * `ModelProvider` (or the offline model) never loads the provider library.
 */
import type { ProviderModelOptions } from "../adapters/providers/provider-model.js";
import type { ModelProvider } from "../ports/model-provider.js";

/**
 * The provider-library model for one endpoint, loading the adapter (and the provider library) on
 * first use.
 *
 * @example
 * const model = await loadProviderModel({ apiKind: "openai-responses", baseUrl, apiKey, model: "gpt-5" });
 */
export async function loadProviderModel(options: ProviderModelOptions): Promise<ModelProvider> {
  const { createProviderModel } = await import("../adapters/providers/provider-model.js");
  return createProviderModel(options);
}
