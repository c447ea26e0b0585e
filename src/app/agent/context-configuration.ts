import type { AgentConfigurationSnapshot } from "../../domain/agent/model-selection.js";
import { agentConfigurationFromSnapshot } from "../../domain/configuration/agent-configuration.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { AgentOptions } from "./types.js";

/**
 * The configuration an agent's turn selects its model from (AG-4, WF-2): the agent's own
 * `configuration` option when it has one; else, when no model set is injected, the snapshot the
 * run's host took (`context.configuration`, keys resolved now), so an agent node inside a
 * workflow uses the project's `STEAMHARNESS_AGENT_MODELS` and is held to its policy; else none.
 *
 * @example
 * const configuration = await turnConfiguration(options, context);
 */
export async function turnConfiguration(options: AgentOptions, context: NodeContext): Promise<AgentConfigurationSnapshot | undefined> {
  if (options.configuration !== undefined) return typeof options.configuration === "function" ? options.configuration(context) : options.configuration;
  if (options.models !== undefined) return undefined;
  return contextConfiguration(context);
}

/**
 * The run's configuration snapshot of a node context in the agent's shape, or `undefined` when
 * the host took none.
 *
 * @example
 * contextConfiguration(context)?.agentModelPolicy // { allowThirdParty: true }
 */
export function contextConfiguration(context: NodeContext | undefined): AgentConfigurationSnapshot | undefined {
  const run = context?.configuration;
  return run ? agentConfigurationFromSnapshot(run.snapshot, run.resolveApiKey, run.resolveSystemApiKey) : undefined;
}
