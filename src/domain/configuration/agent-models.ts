/**
 * `STEAMHARNESS_AGENT_MODELS` (AG-4, CFG-2): the project's list of agent models, a built-in
 * configuration field of type `agent-models`. An entry never holds an API key: a third-party
 * entry names its key with `apiKeyRef` (resolved by the host when the run starts), and a system
 * entry is re-authenticated by the host's own account. The field declaration may say
 * `allowThirdParty: false`; that policy travels in `ProjectConfigurationSnapshot.agentModelPolicy`.
 */
import { Type, type Static } from "@sinclair/typebox";
import { checkSchema, configurationInvalid } from "./schema-check.js";
import { ModelPriceSchema } from "../budget/model-price.js";

/** The configuration key (and built-in field key) of the agent model list. */
export const STEAMHARNESS_AGENT_MODELS = "STEAMHARNESS_AGENT_MODELS";

/** TypeBox schema of one model entry; unknown properties (an `apiKey`, say) are refused. */
export const AgentModelConfigEntrySchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200, description: "Entry id; the agent's `model` option picks it" }),
    provider: Type.String({ minLength: 1, maxLength: 100 }),
    model: Type.String({ minLength: 1, maxLength: 200, description: "The provider's model name" }),
    apiKind: Type.Union([Type.Literal("openai-responses"), Type.Literal("anthropic-messages"), Type.Literal("openai-completions")]),
    baseUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, pattern: "^https?://[^\\s@]+$" })),
    apiKeyRef: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Name of the secret holding the key" })),
    system: Type.Boolean({ description: "A model of the host's own subscription (true) or a saved third-party connection" }),
    /** Capability flags of the model (AG-3 `modelAttributes`; the options of a node win). */
    contextWindow: Type.Optional(Type.Integer({ minimum: 1, description: "Context window in tokens (the context ring, compaction)" })),
    webSearch: Type.Optional(Type.Boolean({ description: "The model supports the provider's native web search; on by default then (OUT-5, OUT-10)" })),
    reasoning: Type.Optional(Type.Boolean({ description: "The model reasons; the agent's effort is then sent" })),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, description: "Output token limit per response" })),
    /** Prices in USD per million tokens (BUD-2): finite, 0 to 1 000 000 — checked when the configuration is saved and loaded (TEN-5). */
    price: Type.Optional(ModelPriceSchema),
  },
  { additionalProperties: false },
);

/** One entry of `STEAMHARNESS_AGENT_MODELS`. */
export type AgentModelConfigEntry = Static<typeof AgentModelConfigEntrySchema>;

/** TypeBox schema of the whole list. */
export const AgentModelListSchema = Type.Array(AgentModelConfigEntrySchema, { maxItems: 100 });

/** The saved model policy of a run (AG-4): `allowThirdParty: false` permits system models only. */
export interface AgentModelPolicy {
  allowThirdParty: boolean;
}

/**
 * Validates a `STEAMHARNESS_AGENT_MODELS` value: a list of entries with unique ids. Throws
 * `input_validation` naming the entry (`values/STEAMHARNESS_AGENT_MODELS/1/id`).
 *
 * @example
 * parseAgentModelList([{ id: "fast", provider: "openai", model: "gpt-5-mini", apiKind: "openai-responses", system: true }]);
 */
export function parseAgentModelList(value: unknown, field = `values/${STEAMHARNESS_AGENT_MODELS}`): AgentModelConfigEntry[] {
  const entries = checkSchema(AgentModelListSchema, value, field);
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    if (seen.has(entry.id)) throw configurationInvalid(`${field}/${index}/id`, `model entry id "${entry.id}" appears twice`);
    seen.add(entry.id);
  });
  return entries;
}
