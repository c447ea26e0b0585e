import { createContextMeter } from "../../domain/agent/context-meter.js";
import { validatePermissionPolicy } from "../../domain/agent/permission-policy.js";
import { SteamharnessError } from "../../domain/errors.js";
import { runAgentTurn } from "./agent-turn.js";
import { compactSession } from "./compact-session.js";
import { createAgentCache } from "./turn.js";
import type { Agent, AgentInternalOptions, AgentOptions } from "./types.js";

const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * Creates the agent runtime (AG-1): a conversation with a model and tools whose every step is an
 * event in a session log, so a run can pause mid-turn (approvals, questions, plan decisions) and
 * be resumed by its run id in this or another process without redoing committed work (SES-3,
 * SES-8). Options are checked now; the model is chosen per run (AG-4).
 *
 * @example
 * const agent = createAgent({ models: createOfflineModel({ steps }), workdir, permissionPolicy: "workspace-write" });
 * for await (const chunk of agent.run({ prompt: "List the files" }, context)) console.log(chunk);
 * agent.getContextUsage(); // { used, total, unit: "tokens", source }
 */
export function createAgent(options: AgentOptions = {}): Agent {
  return openAgent(options);
}

/**
 * {@link createAgent} with the application's internal options: an agent on a session store its
 * caller opened (a session host's context log, a borrowed plan-run log). Not exported from an entry.
 *
 * @example
 * const agent = openAgent({ ...agentOptions, sessionKey: "agent", sessionStore: store });
 */
export function openAgent(options: AgentInternalOptions): Agent {
  validatePermissionPolicy(options.permissionPolicy ?? "ask", options.mode ?? "build");
  for (const field of ["maxRetries", "maxSteps", "retryDelayMs", "bashTimeoutMs", "grepTimeoutMs"] as const) {
    const value = options[field];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw new SteamharnessError("input_validation", `${field} must be an integer ≥ 0`, { field });
    }
  }
  const cache = createAgentCache();
  const meter = createContextMeter(options.modelAttributes?.contextWindow ?? DEFAULT_CONTEXT_WINDOW);
  return {
    run: (input, context) => runAgentTurn(options, cache, meter, input, context),
    compact: (input, context) => compactSession(options, meter, input, context),
    getContextUsage: () => meter.usage(),
    updateContextUsage(update) {
      if (!Number.isFinite(update.used) || update.used < 0) {
        throw new SteamharnessError("input_validation", "used must be a finite number ≥ 0", { field: "used" });
      }
      meter.measure(update.used, update.total);
      return meter.usage();
    },
  };
}
