import { SteamharnessError, UserInputRequiredError } from "./errors.js";
import type { JsonValue } from "./json.js";
import type { NodeContext, ToolCatalogEntry } from "./node-context.js";
import type { ToolPermissionAnswer } from "../ports/tool-permissions.js";
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
   * `context.toolCatalog`, `approval_denied` when disabled or denied, `approval_expired` when
   * nobody decided in time (GOV-2), and
   * {@link UserInputRequiredError} (`user_input_required`) when a person must decide.
   * `context.onDecision` sees the port's final decision when `context.toolPermissions` was asked
   * (it may say who decided, UI-7). `context.requester` goes with the request as `requestedBy` (GOV-1).
   */
  approve(call: ToolApprovalCall, context: Pick<NodeContext, "runId" | "toolPermissions" | "signal"> & Partial<Pick<NodeContext, "toolCatalog" | "requester">> & { onDecision?: (decision: ToolPermissionAnswer) => void }): Promise<void>;
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
 * Tells whether the tool and arguments are the very call the runtime approved and is running in
 * the caller's own execution (CAP-11); the agent layer registers one per copy of the library.
 */
export type ApprovedCallProbe = (port: object, toolId: string, args: unknown) => boolean;

// Kept under a `Symbol.for` key so two copies of the library (ESM and CJS) see each other's.
const PROBES = Symbol.for("steamharness.approval-gate.approved-call-probes");
const approvedCallProbes = (): Set<ApprovedCallProbe> => ((globalThis as Record<symbol, Set<ApprovedCallProbe> | undefined>)[PROBES] ??= new Set());

/**
 * The identity of a call for CAP-11: the tool id and its canonical arguments.
 *
 * @example
 * approvedCallKey("workflow-kv_kv_store", { key: "a", action: "get" }) === approvedCallKey("workflow-kv_kv_store", { action: "get", key: "a" }) // true
 */
export function approvedCallKey(toolId: string, args: unknown): string {
  return `${toolId}\u0000${canonicalJson(args ?? null)}`;
}

/**
 * Registers how the gate learns that a call it is asked about is one the runtime approved and is
 * running now, in the asker's own execution: a tool that asks the gate again inside that call —
 * a capability tool whose `approve` is wired to `createToolApprovalGate().approve`, as the
 * capability seed shows — then gets the runtime's decision instead of a second question (CAP-11).
 * The domain has no notion of "the current execution"; the agent layer supplies it.
 *
 * @example
 * registerApprovedCallProbe((port, toolId, args) => current()?.port === port && current()?.key === approvedCallKey(toolId, args));
 */
export function registerApprovedCallProbe(probe: ApprovedCallProbe): void {
  approvedCallProbes().add(probe);
}

const isApprovedRunningCall = (port: object, toolId: string, args: unknown): boolean => {
  for (const probe of approvedCallProbes()) if (probe(port, toolId, args)) return true;
  return false;
};

/**
 * The error of an approval that expired unanswered (GOV-2): `approval_expired`, never
 * `approval_denied`; `data.then` says whether the run fails or the model is told and goes on.
 *
 * @example
 * throw approvalExpired("deploy", requestId, { then: "continue" });
 */
export function approvalExpired(toolId: string, requestId: string, decision: { then: "fail" | "continue"; reason?: string }): SteamharnessError {
  const reason = decision.reason ? `: ${decision.reason}` : "";
  return new SteamharnessError("approval_expired", `the approval of tool ${toolId} expired before anyone decided${reason}`, { data: { toolId, requestId, then: decision.then } });
}

/** Finds a tool's catalog entry, or `undefined` when it is not registered. */
export function findToolDefinition(tools: readonly ToolCatalogEntry[], toolId: string): ToolCatalogEntry | undefined {
  return tools.find((tool) => tool.id === toolId);
}

/**
 * Tells whether {@link ToolApprovalGate.approve} of this call asks `context.toolPermissions` for a
 * decision: the tool is declared, enabled, not `autoApprove`, and not the very call the runtime
 * approved and is running (CAP-11). A caller records that decision (VIEW-7: the wait it took).
 *
 * @example
 * approvalAsks({ name: "deploy", arguments: {} }, { toolCatalog: [{ id: "deploy" }], toolPermissions }); // true
 */
export function approvalAsks(call: ToolApprovalCall, context: Pick<NodeContext, "toolPermissions"> & Partial<Pick<NodeContext, "toolCatalog">>): boolean {
  const definition = findToolDefinition(context.toolCatalog ?? [], call.name);
  return definition !== undefined && definition.enabled !== false && definition.autoApprove !== true && !isApprovedRunningCall(context.toolPermissions, call.name, call.arguments);
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
      const definition = findToolDefinition(context.toolCatalog ?? [], call.name);
      if (!definition) {
        throw new SteamharnessError("tool_not_registered", `tool not registered: ${call.name} is not declared in executor.tools`, {
          data: { toolId: call.name },
        });
      }
      if (definition.enabled === false) {
        throw new SteamharnessError("approval_denied", `tool ${call.name} is disabled in executor.tools`, { data: { toolId: call.name } });
      }
      // autoApprove, or asked again from inside a call the runtime approved (CAP-11): that decision stands.
      if (!approvalAsks(call, context)) return;
      const requestId = toolApprovalRequestId(context.runId, call.name, call.arguments, call.toolCallId);
      const decision = await context.toolPermissions.request(
        {
          requestId,
          runId: context.runId,
          toolId: call.name,
          arguments: (call.arguments ?? null) as JsonValue,
          ...(call.toolCallId === undefined ? {} : { toolCallId: call.toolCallId }),
          ...(context.requester === undefined ? {} : { requestedBy: context.requester }),
        },
        context.signal,
      );
      if (decision.outcome === "approved" || decision.outcome === "denied") context.onDecision?.(decision);
      if (decision.outcome === "approved") return;
      if (decision.outcome === "denied") {
        const reason = decision.reason ? `: ${decision.reason}` : "";
        throw new SteamharnessError("approval_denied", `tool ${call.name} was denied${reason}`, { data: { toolId: call.name, requestId } });
      }
      if (decision.outcome === "expired") throw approvalExpired(call.name, requestId, decision);
      throw new UserInputRequiredError(requestId, { kind: "tool_approval", toolId: call.name, arguments: call.arguments ?? null, runId: context.runId }, `approval required for ${call.name}`);
    },
  };
}
