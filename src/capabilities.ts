/**
 * steamharness/capabilities — the project capability tools (CAP): the tools an agent gets for its
 * project's KV, knowledge, files and configuration, served natively or as an MCP server, with the
 * resource cards their results carry, the reserved keys and limits they enforce and the host
 * bridge constants a workflow worker reaches them through (ARCH-11). Every export here is public API.
 */
export {
  createProjectCapabilityTools,
  createProjectCapabilityServer,
  runProjectCapabilityAction,
  listProjectCapabilityToolIds,
  isProjectCapabilityAvailable,
} from "./app/capabilities/project-capabilities.js";
export type {
  ProjectCapabilityToolsOptions,
  ProjectCapabilityServerOptions,
  ProjectCapabilityListOptions,
  CapabilityEnv,
  CapabilityEnvironmentOptions,
} from "./app/capabilities/project-capabilities.js";
export { CAPABILITY_TOOL_IDS } from "./domain/capabilities/catalog.js";
export type { CapabilityToolId } from "./domain/capabilities/catalog.js";
export type { CapabilityApprove } from "./domain/capabilities/capability-spec.js";
export { acceptToolResultCard, validateResourceCard, RESOURCE_CARD_KINDS } from "./domain/capabilities/resource-card.js";
export type {
  ResourceCard,
  ResourceCardTarget,
  ResourceCardKind,
  ResourceCardOperation,
  ResourceCardSource,
  ResourceCardWarning,
} from "./domain/capabilities/resource-card.js";
export {
  isReservedKvKey,
  TOKEN_USAGE_TOTAL_KEY,
  TOKEN_USAGE_ENTRY_PREFIX,
  CONVERSATION_STATE_KEY,
  AGENT_KEY_PREFIX,
} from "./domain/capabilities/reserved-keys.js";
export type { KvScope } from "./domain/capabilities/reserved-keys.js";
export { CAPABILITY_LIMITS } from "./domain/capabilities/text-limits.js";
export { HOST_BRIDGE_URL_ENV, HOST_BRIDGE_TOKEN_ENV, HOST_BRIDGE_PATHS } from "./domain/capabilities/host-bridge.js";
export type { HostBridgeClient } from "./domain/capabilities/host-bridge.js";
export { detectCredential } from "./domain/capabilities/credential-detection.js";
