/**
 * The model line of the chat banner: which model the next turn will use, or — when there is
 * none — how to configure one. Computed the way a turn chooses (AG-4): injected models, then an
 * explicit connection, then `STEAMHARNESS_AGENT_MODELS` of the current configuration.
 */
import type { AgentNodeOptions } from "../../../app/agent-node/create-agent-node.js";
import { injectedModels } from "../../../app/agent/model-resolver.js";
import { AGENT_MODELS_KEY, selectAgentModel, type AgentConfigurationSnapshot } from "../../../domain/agent/model-selection.js";
import { agentConfigurationFromSnapshot, type ApiKeyResolver, type SystemApiKeyResolver } from "../../../domain/configuration/agent-configuration.js";
import { takeProjectConfigurationSnapshot } from "../../../domain/configuration/snapshot.js";
import { isSteamharnessError } from "../../../domain/errors.js";
import type { Clock } from "../../../ports/clock.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";

/** What the banner needs to know about the current configuration. */
export interface ChatModelSource {
  /** The snapshot a new turn would take now (the chat's configuration loader), when the chat supplies one. */
  snapshot?: AgentConfigurationSnapshot;
  /** `apiKeyRef` of each configured entry id, to say which variable a missing key comes from. */
  apiKeyRefs?: Readonly<Record<string, string>>;
}

// The hint printed when no model is configured, with the project folder as typed.
function howToConfigureModel(projectDir: string): string {
  const entry = `{ "id": "main", "provider": "openai", "model": "gpt-4.1-mini", "apiKind": "openai-responses", "apiKeyRef": "OPENAI_API_KEY", "system": false }`;
  return [
    "To configure one, either:",
    `  • save it in the local configuration store (the key stays in the variable apiKeyRef names):`,
    `      steamharness config export ${projectDir} -o config.json`,
    `      in config.json set "currentConfigurationId": "default" and add to "configurations":`,
    `        { "configurationId": "default", "name": "Default", "values": { "${AGENT_MODELS_KEY}": [${entry}] } }`,
    `      steamharness config import ${projectDir} config.json`,
    "  • or give the project's executor a model: `models` (a ModelProvider such as createProviderModel(…)), or `provider` + `model` + `apiKey`",
  ].join("\n");
}

/**
 * The banner's model line(s): `model: <provider>/<model> (<where it comes from>)`, a warning when
 * a configured entry's key is not set, or `model: none configured` with how to configure one.
 *
 * @example
 * describeChatModel({ models: createOfflineModel({ steps: [] }) }, {}, "examples/assistant")
 * // "model: offline/offline-scripted (given by the project)"
 */
export function describeChatModel(agent: AgentNodeOptions, source: ChatModelSource, projectDir: string): string {
  if (typeof agent.configuration === "function") return "model: chosen per turn by the project's configuration function";
  const injected = injectedModels(agent.models);
  const snapshot = agent.configuration ?? source.snapshot;
  try {
    const selection = selectAgentModel(
      {
        ...(agent.provider === undefined ? {} : { provider: agent.provider }),
        ...(agent.model === undefined ? {} : { model: agent.model }),
        ...(agent.baseUrl === undefined ? {} : { baseUrl: agent.baseUrl }),
        ...(agent.apiKey === undefined ? {} : { apiKey: agent.apiKey }),
        ...(agent.apiKind === undefined ? {} : { apiKind: agent.apiKind }),
        ...(injected === undefined ? {} : { injected: [...injected.keys()] }),
      },
      snapshot,
    );
    if (selection.source === "injected") {
      const descriptor = injected?.get(selection.id)?.descriptor;
      return `model: ${descriptor ? `${descriptor.provider}/${descriptor.model}` : selection.id} (given by the project)`;
    }
    if (selection.source === "explicit") return `model: ${selection.provider}/${selection.model} (given by the project)`;
    const { entry } = selection;
    const line = `model: ${entry.provider}/${entry.model} (entry "${entry.id}" of ${AGENT_MODELS_KEY})`;
    const ref = source.apiKeyRefs?.[entry.id];
    if (entry.source !== "system" && entry.apiKey === undefined) {
      return `${line}\n  ⚠ no API key: ${ref ? `set the environment variable ${ref}` : "give the entry an apiKeyRef and set that variable"}`;
    }
    return line;
  } catch (error) {
    if (!isSteamharnessError(error, "input_validation") && !isSteamharnessError(error, "not_found")) throw error;
    const none = /^no .* configured/.test(error.message);
    return `model: none configured${none ? "" : ` (${error.message})`}\n${howToConfigureModel(projectDir)}`;
  }
}

/**
 * What a turn starting now would read from the configuration store: the agent-shaped snapshot
 * (keys resolved) and the `apiKeyRef` of each model entry.
 *
 * @example
 * describeChatModel(agent, await currentModelSource(store, projectId, clock, (ref) => process.env[ref]), dir);
 */
export async function currentModelSource(store: Pick<ProjectConfigurationStore, "read">, projectId: string, clock: Clock, resolveApiKey: ApiKeyResolver, resolveSystemApiKey?: SystemApiKeyResolver): Promise<ChatModelSource> {
  const snapshot = await takeProjectConfigurationSnapshot(store, projectId, { clock });
  const apiKeyRefs: Record<string, string> = {};
  for (const entry of snapshot.STEAMHARNESS_AGENT_MODELS) if (entry.apiKeyRef !== undefined) apiKeyRefs[entry.id] = entry.apiKeyRef;
  return { snapshot: agentConfigurationFromSnapshot(snapshot, resolveApiKey, resolveSystemApiKey), apiKeyRefs };
}
