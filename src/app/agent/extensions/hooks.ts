import type { AgentTool } from "../../../domain/agent-tool.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonObject } from "../../../domain/json.js";
import type { ModelProvider } from "../../../ports/model-provider.js";
import { parentToolCallIdOf } from "../../../domain/agent/ids.js";
import type { AgentHookToolCall, AgentSessionHooks, AgentToolCallDecision } from "./types.js";

/**
 * The hooks of `session.registry` (EXT-2) for one run, in a defined order: hook objects in
 * registration order, and for each point only the hooks that define it. A hook that throws ends
 * the run with `hook_failed` (an `agent-error` item, SES-9), never silently.
 */
export interface RunHooks {
  readonly active: boolean;
  /**
   * The first hook failure of the run. A tool hook's failure surfaces inside the tool's execution,
   * which the loop would turn into a tool error; the loop checks this after each tool call and
   * fails the run instead.
   */
  readonly fault: SteamharnessError | null;
  /** The model with `beforeModelRequest` / `afterModelResponse` around each live request. */
  model(model: ModelProvider, runId: string): ModelProvider;
  /**
   * The `beforeToolCall` hooks of one live call, in order, before it is approved: the arguments
   * to approve and run (rewritten or not), or the first denial. A throwing hook records the
   * run's fault and rethrows it.
   */
  beforeTool(call: AgentHookToolCall): Promise<{ arguments: JsonObject } | { deny: string }>;
  /** The tool with `afterToolCall` after each live execution. */
  tool(tool: AgentTool, runId: string): AgentTool;
  pause(event: { runId: string; requestId: string; request: Record<string, unknown> }): Promise<void>;
  runEnd(event: { runId: string; status: "completed" | "failed" | "cancelled"; error?: string }): Promise<void>;
}

const failed = (point: string, error: unknown): SteamharnessError =>
  new SteamharnessError("hook_failed", `the ${point} hook failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error, data: { hook: point } });

/**
 * The run's hooks (EXT-2).
 *
 * @example
 * const hooks = createRunHooks([{ beforeToolCall: (call) => (call.name === "bash" ? { deny: "no shell today" } : undefined) }]);
 */
export function createRunHooks(list: readonly AgentSessionHooks[] = []): RunHooks {
  let fault: SteamharnessError | null = null;
  const each = async <K extends keyof AgentSessionHooks>(point: K, call: (hook: NonNullable<AgentSessionHooks[K]>, owner: AgentSessionHooks) => unknown): Promise<unknown[]> => {
    const results: unknown[] = [];
    for (const hooks of list) {
      const hook = hooks[point];
      if (!hook) continue;
      try {
        results.push(await call(hook as NonNullable<AgentSessionHooks[K]>, hooks));
      } catch (error) {
        fault ??= failed(point, error);
        throw fault;
      }
    }
    return results;
  };
  const wrappedTools = new WeakMap<AgentTool, AgentTool>();
  return {
    active: list.length > 0,
    get fault() {
      return fault;
    },
    model(model, runId) {
      if (!list.some((hooks) => hooks.beforeModelRequest || hooks.afterModelResponse)) return model;
      let step = 0;
      return {
        descriptor: model.descriptor,
        async *stream(request, signal) {
          const current = step++;
          await each("beforeModelRequest", (hook, owner) => hook.call(owner, { runId, step: current, request }));
          for await (const event of model.stream(request, signal)) {
            if (event.type === "done") {
              const toolCalls = event.response.content.filter((block) => block.type === "toolCall").length;
              await each("afterModelResponse", (hook, owner) => hook.call(owner, { runId, step: current, toolCalls, stopReason: event.response.stopReason }));
            }
            yield event;
          }
        },
      };
    },
    async beforeTool(call) {
      let args = call.arguments;
      // In order: a later hook sees the arguments an earlier one rewrote; the first denial wins.
      for (const hooks of list) {
        if (!hooks.beforeToolCall) continue;
        let decision: AgentToolCallDecision;
        try {
          decision = await hooks.beforeToolCall({ ...call, arguments: args });
        } catch (error) {
          fault ??= failed("beforeToolCall", error);
          throw fault;
        }
        if (decision && "deny" in decision) return { deny: decision.deny };
        if (decision && "arguments" in decision) args = decision.arguments;
      }
      return { arguments: args };
    },
    tool(tool, runId) {
      if (!list.some((hooks) => hooks.afterToolCall)) return tool;
      let wrapped = wrappedTools.get(tool);
      if (!wrapped) {
        wrapped = {
          ...tool,
          async execute(toolCallId, params, signal, onUpdate) {
            const parent = parentToolCallIdOf(toolCallId);
            const call: AgentHookToolCall = { runId, toolCallId, name: tool.name, arguments: (params ?? {}) as JsonObject, ...(parent ? { parentToolCallId: parent } : {}) };
            let result;
            try {
              result = await tool.execute(toolCallId, params, signal, onUpdate);
            } catch (error) {
              await each("afterToolCall", (hook, owner) => hook.call(owner, { ...call, isError: true, text: error instanceof Error ? error.message : String(error) }));
              throw error;
            }
            await each("afterToolCall", (hook, owner) => hook.call(owner, { ...call, isError: false, text: result.content.map((block) => block.text).join("\n") }));
            return result;
          },
        };
        wrappedTools.set(tool, wrapped);
      }
      return wrapped;
    },
    async pause(event) {
      await each("onPause", (hook, owner) => hook.call(owner, event));
    },
    async runEnd(event) {
      await each("onRunEnd", (hook, owner) => hook.call(owner, event));
    },
  };
}
