/**
 * The bridge from a `ProjectConfigurationSnapshot` to the agent's model selection (AG-4): the
 * agent reads `values.STEAMHARNESS_AGENT_MODELS` entries with `source` ("system" |
 * "third-party") and an `apiKey`; the configuration stores `system: boolean` and an `apiKeyRef`
 * (never the key). Keys are resolved here, when a run starts, by a host-supplied function.
 */
import type { AgentConfigurationSnapshot } from "../agent/model-selection.js";
import type { JsonValue } from "../json.js";
import { STEAMHARNESS_AGENT_MODELS } from "./agent-models.js";
import type { ProjectConfigurationSnapshot } from "./snapshot.js";
import { cloneJson } from "./schema-check.js";

/** Resolves an `apiKeyRef` to the key, or `undefined` when the host has none. */
export type ApiKeyResolver = (apiKeyRef: string, entryId: string) => string | undefined;

/**
 * The snapshot in the shape the agent's `configuration` option takes: entries gain `source`
 * (from `system`) and, for a resolvable `apiKeyRef`, `apiKey`; `agentModelPolicy` is kept.
 *
 * @example
 * const agent = createAgent({ configuration: agentConfigurationFromSnapshot(snapshot, (ref) => secrets[ref]) });
 */
export function agentConfigurationFromSnapshot(snapshot: ProjectConfigurationSnapshot, resolveApiKey?: ApiKeyResolver): AgentConfigurationSnapshot {
  const models = snapshot.STEAMHARNESS_AGENT_MODELS.map((entry) => {
    const { system, apiKeyRef, ...rest } = entry;
    const apiKey = apiKeyRef === undefined ? undefined : resolveApiKey?.(apiKeyRef, entry.id);
    // The ref stays beside the key, so a turn without a key names the variable it looked in.
    return { ...rest, source: system ? "system" : "third-party", ...(apiKeyRef === undefined ? {} : { apiKeyRef }), ...(apiKey === undefined ? {} : { apiKey }) };
  });
  const values: Record<string, JsonValue> = { ...cloneJson(snapshot.values), [STEAMHARNESS_AGENT_MODELS]: models };
  return { values, agentModelPolicy: { ...snapshot.agentModelPolicy } };
}
