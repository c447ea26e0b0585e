/**
 * The stable ids of the capability tools (CAP-1, CAP-2). Hosts authorize, approve and resume by
 * these ids, so they never change. A tool id is `<MCP service id>_<tool name>`: an MCP server
 * announces itself as the service id and lists one tool by its short name, so a host harness that
 * names MCP tools `<server>_<tool>` shows the model exactly the native name.
 */

/** Every capability tool id. */
export const CAPABILITY_TOOL_IDS = {
  knowledge: "workflow-knowledge_knowledge_documents",
  kv: "workflow-kv_kv_store",
  memory: "workflow-memory_global_memory",
  presentCard: "workflow-ui_present_card",
  hostConfiguration: "workflow-host_project_configurations",
} as const;

/** A capability tool id. */
export type CapabilityToolId = (typeof CAPABILITY_TOOL_IDS)[keyof typeof CAPABILITY_TOOL_IDS];

/** The MCP service id and short tool name of a capability. */
export interface CapabilityAddress {
  toolId: CapabilityToolId;
  serviceId: string;
  toolName: string;
}

/** Service id and tool name of every capability, in the order tools are listed. */
export const CAPABILITY_ADDRESSES: readonly CapabilityAddress[] = [
  { toolId: CAPABILITY_TOOL_IDS.knowledge, serviceId: "workflow-knowledge", toolName: "knowledge_documents" },
  { toolId: CAPABILITY_TOOL_IDS.kv, serviceId: "workflow-kv", toolName: "kv_store" },
  { toolId: CAPABILITY_TOOL_IDS.memory, serviceId: "workflow-memory", toolName: "global_memory" },
  { toolId: CAPABILITY_TOOL_IDS.presentCard, serviceId: "workflow-ui", toolName: "present_card" },
  { toolId: CAPABILITY_TOOL_IDS.hostConfiguration, serviceId: "workflow-host", toolName: "project_configurations" },
];

/**
 * The tool id a host harness composes from an MCP server name and a tool name.
 *
 * @example
 * composeToolId("workflow-kv", "kv_store") // "workflow-kv_kv_store"
 */
export function composeToolId(serviceId: string, toolName: string): string {
  return `${serviceId}_${toolName}`;
}

/**
 * True when `value` is one of the capability tool ids.
 *
 * @example
 * isCapabilityToolId("workflow-kv_kv_store") // true
 */
export function isCapabilityToolId(value: unknown): value is CapabilityToolId {
  return typeof value === "string" && CAPABILITY_ADDRESSES.some((address) => address.toolId === value);
}
