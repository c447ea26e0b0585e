import { SteamharnessError, UserInputRequiredError } from "./errors.js";
import type { JsonValue } from "./json.js";
import type { NodeContext, ToolPermissionDefinition } from "./node-context.js";
import { canonicalJson, stableHash } from "./stable-hash.js";

/** A tool call to approve: the tool id and its arguments. */
export interface ToolApprovalCall {
  name: string;
  arguments: unknown;
  /** The model's tool-call id, when there is one; it makes the request id exact. */
  toolCallId?: string;
}

/** The approval gate of WF-0 / CAP-3. */
export interface ToolApprovalGate {
  /**
   * Resolves when the call may run. Rejects with `tool_not_registered` for a tool absent from
   * `context.executor.tools`, `approval_denied` when disabled or denied, and
   * {@link UserInputRequiredError} (`user_input_required`) when a person must decide.
   */
  approve(call: ToolApprovalCall, context: Pick<NodeContext, "runId" | "executor" | "toolPermissions" | "signal">): Promise<void>;
}

/**
 * The request id of an approval: stable for the same run, tool and call, so a resumed run asks
 * again with the same id and a new run never matches an old decision.
 *
 * @example
 * toolApprovalRequestId("run-1", "workflow-kv_kv_store", { action: "get", key: "a" })
 */
export function toolApprovalRequestId(runId: string, toolId: string, args: unknown, toolCallId?: string): string {
  const subject = toolCallId ?? canonicalJson(args);
  return `approval:${stableHash(`${runId}\u0000${toolId}\u0000${subject}`)}`;
}

/**
 * Calls the runtime already approved and is running now, per approval port (CAP-11). A tool that
 * asks the gate again inside its own execution — a capability tool whose `approve` is wired to
 * `createToolApprovalGate().approve`, as the capability seed shows — gets the same decision
 * instead of a second question with another request id. Kept under a `Symbol.for` key so two
 * copies of the library (ESM and CJS) share it.
 */
type ApprovedCalls = WeakMap<object, Map<string, number>>;
const APPROVED = Symbol.for("steamharness.approval-gate.approved-calls");
const approvedCalls = (): ApprovedCalls => ((globalThis as Record<symbol, ApprovedCalls | undefined>)[APPROVED] ??= new WeakMap());
const approvedKey = (toolId: string, args: unknown): string => `${toolId}\u0000${canonicalJson(args ?? null)}`;

/**
 * Runs `work` (a tool call the runtime has approved) while the gate treats the same tool and
 * arguments as approved for this approval port: one decision per call, however the host wires
 * the tool's own `approve` (CAP-11). Resolves or rejects with `work`.
 *
 * @example
 * const result = await withApprovedCall(context.toolPermissions, { name: "workflow-kv_kv_store", arguments: args }, () => tool.execute(id, args));
 */
export async function withApprovedCall<T>(port: object, call: { name: string; arguments: unknown }, work: () => Promise<T>): Promise<T> {
  const key = approvedKey(call.name, call.arguments);
  const calls = approvedCalls();
  let running = calls.get(port);
  if (!running) calls.set(port, (running = new Map()));
  running.set(key, (running.get(key) ?? 0) + 1);
  try {
    return await work();
  } finally {
    const left = (running.get(key) ?? 1) - 1;
    if (left === 0) running.delete(key);
    else running.set(key, left);
  }
}

/** Finds a tool's catalog entry, or `undefined` when it is not registered. */
export function findToolDefinition(tools: readonly ToolPermissionDefinition[], toolId: string): ToolPermissionDefinition | undefined {
  return tools.find((tool) => tool.id === toolId);
}

/**
 * Builds the single approval chain the host's tool catalog governs: undeclared → not registered,
 * `enabled: false` → denied, `autoApprove` → approved, otherwise `context.toolPermissions`
 * decides (and may pause the run).
 *
 * @example
 * const gate = createToolApprovalGate();
 * await gate.approve({ name: "workflow-kv_kv_store", arguments: args }, context);
 */
export function createToolApprovalGate(): ToolApprovalGate {
  return {
    async approve(call, context) {
      const definition = findToolDefinition(context.executor.tools, call.name);
      if (!definition) {
        throw new SteamharnessError("tool_not_registered", `tool not registered: ${call.name} is not declared in executor.tools`, {
          data: { toolId: call.name },
        });
      }
      if (definition.enabled === false) {
        throw new SteamharnessError("approval_denied", `tool ${call.name} is disabled in executor.tools`, { data: { toolId: call.name } });
      }
      if (definition.autoApprove === true) return;
      // Asked again from inside a call the runtime approved (CAP-11): that decision stands.
      if (approvedCalls().get(context.toolPermissions)?.has(approvedKey(call.name, call.arguments))) return;
      const requestId = toolApprovalRequestId(context.runId, call.name, call.arguments, call.toolCallId);
      const decision = await context.toolPermissions.request(
        {
          requestId,
          runId: context.runId,
          toolId: call.name,
          arguments: (call.arguments ?? null) as JsonValue,
          ...(call.toolCallId === undefined ? {} : { toolCallId: call.toolCallId }),
        },
        context.signal,
      );
      if (decision.outcome === "approved") return;
      if (decision.outcome === "denied") {
        const reason = decision.reason ? `: ${decision.reason}` : "";
        throw new SteamharnessError("approval_denied", `tool ${call.name} was denied${reason}`, { data: { toolId: call.name, requestId } });
      }
      throw new UserInputRequiredError(requestId, { kind: "tool_approval", toolId: call.name, arguments: call.arguments ?? null, runId: context.runId }, `approval required for ${call.name}`);
    },
  };
}
