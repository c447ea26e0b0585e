import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "../errors.js";
import type { AgentModelPolicy } from "../configuration/agent-models.js";
import type { JsonValue } from "../json.js";
import { describeSchemaError } from "../schema-errors.js";
import { checkModelPrice, ModelPriceSchema } from "../budget/model-price.js";

/** The configuration key holding the project's agent models (AG-4). */
export const AGENT_MODELS_KEY = "STEAMHARNESS_AGENT_MODELS";

/** The provider APIs the agent speaks (AG-3). */
export type AgentApiKind = "openai-responses" | "anthropic-messages" | "openai-completions";

const ApiKindSchema = Type.Union([Type.Literal("openai-responses"), Type.Literal("anthropic-messages"), Type.Literal("openai-completions")]);

/** One entry of `STEAMHARNESS_AGENT_MODELS`. */
export const AgentModelEntrySchema = Type.Object({
  id: Type.String({ minLength: 1 }),
  /** `system`: a model of the host's own subscription; `third-party`: a saved connection. */
  source: Type.Optional(Type.Union([Type.Literal("system"), Type.Literal("third-party")])),
  provider: Type.String({ minLength: 1 }),
  model: Type.String({ minLength: 1 }),
  apiKind: Type.Optional(ApiKindSchema),
  baseUrl: Type.Optional(Type.String()),
  apiKey: Type.Optional(Type.String()),
  /** The variable the key was looked up in (from the configuration), for messages; never a key. */
  apiKeyRef: Type.Optional(Type.String()),
  contextWindow: Type.Optional(Type.Integer({ minimum: 1 })),
  webSearch: Type.Optional(Type.Boolean()),
  reasoning: Type.Optional(Type.Boolean()),
  maxTokens: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Prices in USD per million tokens (BUD-2); overrides the provider library's metadata. */
  price: Type.Optional(ModelPriceSchema),
});
export type AgentModelEntry = Static<typeof AgentModelEntrySchema>;

const AgentModelsValueSchema = Type.Union([
  Type.Array(AgentModelEntrySchema),
  Type.Object({ allowThirdParty: Type.Optional(Type.Boolean()), models: Type.Array(AgentModelEntrySchema) }),
]);

// One policy type for the configuration and the agent (AG-4): `allowThirdParty: false` allows system models only.
export type { AgentModelPolicy } from "../configuration/agent-models.js";

/**
 * The part of a project configuration snapshot the agent reads (CFG-2): configuration values
 * (with `STEAMHARNESS_AGENT_MODELS`) and the saved model policy. A run keeps the snapshot it
 * started with; a resumed run uses it even if the configuration changed since.
 */
export interface AgentConfigurationSnapshot {
  values?: Record<string, JsonValue>;
  agentModelPolicy?: AgentModelPolicy;
}

/** What the caller asked for: the AG-3 connection options and the ids of injected models. */
export interface AgentModelRequest {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  apiKind?: AgentApiKind;
  /** Ids of an injected model set, in order; absent when none was injected. */
  injected?: readonly string[];
}

/** The chosen model: an injected one, an explicit connection, or a configured entry. */
export type AgentModelSelection =
  | { source: "injected"; id: string }
  | { source: "explicit"; provider: string; model: string; apiKind: AgentApiKind; baseUrl?: string; apiKey?: string }
  | { source: "configured"; entry: AgentModelEntry & { apiKind: AgentApiKind } };

/**
 * Reads `STEAMHARNESS_AGENT_MODELS` (an array of entries, or `{ allowThirdParty, models }`; a JSON
 * string of either is accepted) and the policy. Throws `input_validation` when malformed.
 *
 * @example
 * readAgentModels({ values: { STEAMHARNESS_AGENT_MODELS: [{ id: "m", provider: "openai", model: "gpt-5" }] } })
 */
export function readAgentModels(snapshot: AgentConfigurationSnapshot | undefined): { entries: AgentModelEntry[]; policy: AgentModelPolicy } {
  let raw: unknown = snapshot?.values?.[AGENT_MODELS_KEY] ?? [];
  if (typeof raw === "string") {
    try {
      raw = raw.trim() === "" ? [] : JSON.parse(raw);
    } catch (cause) {
      throw new SteamharnessError("input_validation", `${AGENT_MODELS_KEY} is not valid JSON`, { field: AGENT_MODELS_KEY, cause });
    }
  }
  // TEN-5: a bad price is named by its entry and field (the union's own error names only the root).
  const listed = Array.isArray(raw) ? raw : typeof raw === "object" && raw !== null ? (raw as { models?: unknown }).models : undefined;
  if (Array.isArray(listed)) {
    listed.forEach((entry: unknown, index) => {
      const price = typeof entry === "object" && entry !== null ? (entry as { price?: unknown }).price : undefined;
      if (price !== undefined) checkModelPrice(price, `${AGENT_MODELS_KEY}/${index}/price`, "/");
    });
  }
  if (!Value.Check(AgentModelsValueSchema, raw)) {
    const first = [...Value.Errors(AgentModelsValueSchema, raw)][0];
    throw new SteamharnessError("input_validation", `${AGENT_MODELS_KEY} is malformed${first ? ` at ${first.path || "/"}: ${describeSchemaError(first)}` : ""}`, { field: AGENT_MODELS_KEY });
  }
  const entries = Array.isArray(raw) ? raw : raw.models;
  const declared = Array.isArray(raw) ? undefined : raw.allowThirdParty;
  const policy = snapshot?.agentModelPolicy ?? { allowThirdParty: declared ?? true };
  return { entries, policy };
}

const defaultApiKind = (provider: string): AgentApiKind => (provider === "anthropic" ? "anthropic-messages" : "openai-responses");

/**
 * Chooses the model of a run (AG-4). With `allowThirdParty: false` only system entries qualify
 * and an explicit endpoint, API key or injected model set is refused (`input_validation`).
 * Otherwise: an injected set wins (`model` picks its id, else the first), then an explicit
 * endpoint (`baseUrl`/`apiKey`), then the configured entries (`model` picks an entry id, else the
 * first, optionally narrowed by `provider`). Nothing to choose from → `input_validation`.
 *
 * @example
 * selectAgentModel({ model: "fast" }, snapshot)
 */
export function selectAgentModel(request: AgentModelRequest, snapshot: AgentConfigurationSnapshot | undefined): AgentModelSelection {
  const { entries, policy } = readAgentModels(snapshot);
  const explicit = request.baseUrl !== undefined || request.apiKey !== undefined;
  if (!policy.allowThirdParty) {
    if (explicit || request.injected !== undefined) {
      throw new SteamharnessError("input_validation", "allowThirdParty is false: explicit endpoints, API keys and injected models are refused", { field: "model" });
    }
    return pickEntry(entries.filter((entry) => entry.source === "system"), request, "system models");
  }
  if (request.injected !== undefined) {
    if (request.injected.length === 0) throw new SteamharnessError("input_validation", "the injected model set is empty", { field: "models" });
    if (request.model !== undefined && !request.injected.includes(request.model)) {
      throw new SteamharnessError("not_found", `model "${request.model}" is not in the injected model set`, { field: "model" });
    }
    return { source: "injected", id: request.model ?? request.injected[0]! };
  }
  if (explicit) {
    if (!request.provider || !request.model) {
      throw new SteamharnessError("input_validation", "an explicit endpoint needs provider and model", { field: request.provider ? "model" : "provider" });
    }
    return {
      source: "explicit",
      provider: request.provider,
      model: request.model,
      apiKind: request.apiKind ?? defaultApiKind(request.provider),
      ...(request.baseUrl === undefined ? {} : { baseUrl: request.baseUrl }),
      ...(request.apiKey === undefined ? {} : { apiKey: request.apiKey }),
    };
  }
  const candidates = request.provider ? entries.filter((entry) => entry.provider === request.provider) : entries;
  return pickEntry(candidates, request, request.provider ? `models of provider ${request.provider}` : "models");
}

function pickEntry(entries: AgentModelEntry[], request: AgentModelRequest, what: string): AgentModelSelection {
  if (entries.length === 0) {
    throw new SteamharnessError("input_validation", `no ${what} configured: set ${AGENT_MODELS_KEY} in the project configuration, or give a model`, { field: "model" });
  }
  const entry = request.model === undefined ? entries[0] : entries.find((candidate) => candidate.id === request.model);
  if (!entry) throw new SteamharnessError("not_found", `model "${request.model}" is not among the configured ${what}`, { field: "model" });
  return { source: "configured", entry: { ...entry, apiKind: entry.apiKind ?? defaultApiKind(entry.provider) } };
}
