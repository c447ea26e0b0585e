/**
 * The public capability API (CAP-1, CAP-2, CAP-3): native agent tools, MCP servers, direct
 * execution by tool id, and which ids a turn shows. The specs live in
 * `src/domain/capabilities`; this layer wires them to a `NodeContext`, the process environment
 * (for the host bridge, CAP-8) and the MCP and HTTP adapters.
 *
 * Approval: `approve(toolId, args)` runs before every execution in both renderings, after
 * argument validation (nobody is asked to approve a call that cannot run) and before any store
 * or bridge access (a denial writes nothing). `runProjectCapabilityAction` does not ask again:
 * it is how a host resumes a call it has already approved (the paused turn is over and the
 * closure holding `approve` is gone), so the caller is the approval.
 */
import type { AgentTool, AgentToolResult } from "../../domain/agent-tool.js";
import { findToolDefinition } from "../../domain/approval-gate.js";
import { SteamharnessError } from "../../domain/errors.js";
import type { NodeContext } from "../../domain/node-context.js";
import { CAPABILITY_TOOL_IDS, isCapabilityToolId } from "../../domain/capabilities/catalog.js";
import { runCapability, type CapabilityApprove, type CapabilityRuntime, type CapabilitySpec } from "../../domain/capabilities/capability-spec.js";
import { resolveHostBridge } from "../../domain/capabilities/host-bridge.js";
import { capabilitySpecOf, exposedCapabilityToolIds } from "../../domain/capabilities/registry.js";
import type { McpServerHandle } from "../../ports/mcp-server.js";

/** An environment record; defaults to `process.env`. */
export type CapabilityEnv = Readonly<Record<string, string | undefined>>;

/** Options shared by every capability entry point. */
export interface CapabilityEnvironmentOptions {
  /** Where the host-bridge variables are read (default `process.env`). */
  env?: CapabilityEnv;
  /** `target.source` of the cards this project's KV and knowledge results carry (default `local`). */
  cardSource?: "local" | "server";
}

/** Options of {@link createProjectCapabilityTools}. */
export interface ProjectCapabilityToolsOptions extends CapabilityEnvironmentOptions {
  context: NodeContext;
  approve?: CapabilityApprove;
  /** Include cross-session memory; only when the host has a memory store (CAP-6). */
  globalMemory?: boolean;
}

/** Options of {@link createProjectCapabilityServer}. */
export interface ProjectCapabilityServerOptions extends CapabilityEnvironmentOptions {
  context: NodeContext;
  approve?: CapabilityApprove;
  /** Where the built MCP Apps card view is (`dist/viewer`); found next to the package by default. */
  viewerAssetsDirectory?: string;
}

/** Options of {@link listProjectCapabilityToolIds} and {@link isProjectCapabilityAvailable}. */
export interface ProjectCapabilityListOptions {
  globalMemory?: boolean;
  env?: CapabilityEnv;
}

/**
 * The capability tools of this turn as native agent tools, named by tool id. Tools the context's
 * catalog (`context.toolCatalog`) marks `enabled: false` are left out.
 *
 * @example
 * const approval = createToolApprovalGate();
 * const tools = await createProjectCapabilityTools({
 *   context, globalMemory: true,
 *   approve: (toolId, args) => approval.approve({ name: toolId, arguments: args }, context),
 * });
 */
export async function createProjectCapabilityTools(options: ProjectCapabilityToolsOptions): Promise<AgentTool[]> {
  const runtime = capabilityRuntime(options.context, options);
  const ids = exposedCapabilityToolIds({ globalMemory: options.globalMemory, hostBridgeAvailable: runtime.hostBridge !== undefined })
    // The host's catalog decides exposure: `enabled: false` hides a tool (CAP-3). Undeclared tools
    // stay visible and fail approval with "tool not registered", as the seed describes.
    .filter((toolId) => findToolDefinition(options.context.toolCatalog, toolId)?.enabled !== false);
  return ids.map((toolId) => nativeTool(capabilitySpecOf(toolId), runtime, options.context, options.approve));
}

/**
 * One capability as an MCP server (announced as its service id, listing its short tool name);
 * connect it to an MCP SDK transport yourself, or serve it over HTTP with `createMcpHttpHandler`. Throws `not_found` for an unknown tool id and `unavailable`
 * (with the reason) for host configuration without a valid bridge. Asking for the memory server
 * by id is the host's explicit choice, so it is built without a `globalMemory` flag.
 *
 * @example
 * const server = await createProjectCapabilityServer("workflow-kv_kv_store", { context });
 * await server.connect(new StdioServerTransport());
 */
export async function createProjectCapabilityServer(toolId: string, options: ProjectCapabilityServerOptions): Promise<McpServerHandle> {
  const spec = capabilitySpecOf(toolId);
  const runtime = capabilityRuntime(options.context, options);
  if (toolId === CAPABILITY_TOOL_IDS.hostConfiguration) requireBridge(runtime);
  return options.context.runtime.capabilityServer(spec, { runtime, ...(options.approve ? { approve: options.approve } : {}), ...(options.viewerAssetsDirectory ? { viewerAssetsDirectory: options.viewerAssetsDirectory } : {}) });
}

/**
 * Executes one action by tool id, without asking for approval (resume after the host approved).
 * Rejects with the capability's `SteamharnessError`.
 *
 * @example
 * await runProjectCapabilityAction("workflow-kv_kv_store", context, { action: "set", key: "a", value: 1 });
 */
export async function runProjectCapabilityAction(
  toolId: string,
  context: NodeContext,
  args: unknown,
  options: CapabilityEnvironmentOptions = {},
): Promise<AgentToolResult> {
  const spec = capabilitySpecOf(toolId);
  const runtime = capabilityRuntime(context, options);
  if (toolId === CAPABILITY_TOOL_IDS.hostConfiguration) requireBridge(runtime);
  return runCapability(spec, runtime, args, undefined, context.signal);
}

/**
 * The tool ids this turn shows: knowledge, KV and cards; memory with `globalMemory`; host
 * configuration when the bridge variables are valid.
 *
 * @example
 * listProjectCapabilityToolIds({ globalMemory: true })
 */
export function listProjectCapabilityToolIds(options: ProjectCapabilityListOptions = {}): string[] {
  const hostBridgeAvailable = resolveHostBridge(options.env ?? process.env).ok;
  return exposedCapabilityToolIds({ globalMemory: options.globalMemory, hostBridgeAvailable });
}

/**
 * Whether a capability would be exposed; `false` for unknown ids and never throws (a bad bridge
 * URL hides only host configuration).
 *
 * @example
 * isProjectCapabilityAvailable("workflow-host_project_configurations") // false without a bridge
 */
export function isProjectCapabilityAvailable(toolId: string, options: ProjectCapabilityListOptions = {}): boolean {
  return isCapabilityToolId(toolId) && listProjectCapabilityToolIds(options).includes(toolId);
}

function capabilityRuntime(context: NodeContext, options: CapabilityEnvironmentOptions): CapabilityRuntime {
  const runtime: CapabilityRuntime = { projectId: context.projectId, storage: context.storage, cardSource: options.cardSource ?? "local" };
  if (context.conversationId !== undefined) runtime.conversationId = context.conversationId;
  const bridge = resolveHostBridge(options.env ?? process.env);
  if (bridge.ok) runtime.hostBridge = context.runtime.hostBridge(bridge.config);
  else runtime.hostBridgeUnavailableReason = bridge.reason;
  return runtime;
}

function requireBridge(runtime: CapabilityRuntime): void {
  if (runtime.hostBridge) return;
  throw new SteamharnessError("unavailable", `host configuration is unavailable: ${runtime.hostBridgeUnavailableReason ?? "no host bridge"}`);
}

function nativeTool(spec: CapabilitySpec<any>, runtime: CapabilityRuntime, context: NodeContext, approve?: CapabilityApprove): AgentTool {
  return {
    name: spec.address.toolId,
    label: spec.label,
    description: spec.description,
    parameters: spec.parameters,
    replay: spec.replay,
    execute: (_toolCallId, params, signal) => runCapability(spec, runtime, params, approve, signal ?? context.signal),
  };
}
