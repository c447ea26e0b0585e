import { readAgentModels, selectAgentModel, type AgentConfigurationSnapshot, type AgentModelEntry, type AgentModelSelection } from "../../domain/agent/model-selection.js";
import type { RunStartedPayload } from "../../domain/agent/session-events.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { ModelProvider } from "../../ports/model-provider.js";
import { turnConfiguration } from "./context-configuration.js";
import { injectedModels, resolveModel, restoreKey } from "./model-resolver.js";
import type { AgentOptions } from "./types.js";

/** The model a run (or a compaction of its session) uses, and what it was chosen from. */
export interface RunModel {
  selection: AgentModelSelection;
  model: ModelProvider;
  configuration: AgentConfigurationSnapshot | undefined;
}

/**
 * Chooses and builds the model of a run (AG-4): the selection saved in the run's `run_started`
 * event when there is one (its key restored from the current configuration by entry id, CFG-2),
 * else a fresh selection from the options, the per-turn `model` and the configuration snapshot.
 * A compaction passes the session's latest run start, so it is the session's own model (SES-11).
 *
 * @example
 * const { model } = await chooseRunModel(options, context, saved, input.model);
 */
export async function chooseRunModel(options: AgentOptions, context: NodeContext, saved: RunStartedPayload | null, requestedModel?: string): Promise<RunModel> {
  const configuration = await turnConfiguration(options, context);
  const injected = injectedModels(options.models);
  const model = requestedModel ?? options.model;
  const request = {
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(model === undefined ? {} : { model }),
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.apiKind === undefined ? {} : { apiKind: options.apiKind }),
    ...(injected === undefined ? {} : { injected: [...injected.keys()] }),
  };
  let selection: AgentModelSelection;
  if (saved) {
    let currentEntries: AgentModelEntry[] | null = null;
    try {
      currentEntries = readAgentModels(configuration).entries;
    } catch {
      currentEntries = null;
    }
    selection = restoreKey(saved.modelSource as unknown as AgentModelSelection, currentEntries, options.apiKey);
  } else selection = selectAgentModel(request, configuration);
  const provider = selection.source !== "injected" && options.createModel
    ? await options.createModel(selection, context)
    : await resolveModel(selection, injected, options.modelAttributes, context.runtime);
  return { selection, model: provider, configuration };
}
