/**
 * The capability specs by tool id, and which of them a turn exposes (CAP-2, CAP-6, CAP-8).
 */
import { SteamharnessError } from "../errors.js";
import { CAPABILITY_TOOL_IDS, type CapabilityToolId } from "./catalog.js";
import type { CapabilitySpec } from "./capability-spec.js";
import { hostConfigurationCapability } from "./host-configuration-capability.js";
import { knowledgeCapability } from "./knowledge-capability.js";
import { kvCapability } from "./kv-capability.js";
import { memoryCapability } from "./memory-capability.js";
import { presentCardCapability } from "./present-card-capability.js";

/** Every capability spec, in listing order. */
export const CAPABILITY_SPECS: readonly CapabilitySpec<any>[] = [
  knowledgeCapability,
  kvCapability,
  memoryCapability,
  presentCardCapability,
  hostConfigurationCapability,
];

/**
 * The spec of a tool id, or throws `not_found` for an unknown id.
 *
 * @example
 * capabilitySpecOf("workflow-kv_kv_store").address.serviceId // "workflow-kv"
 */
export function capabilitySpecOf(toolId: string): CapabilitySpec<any> {
  const spec = CAPABILITY_SPECS.find((candidate) => candidate.address.toolId === toolId);
  if (!spec) {
    const known = CAPABILITY_SPECS.map((s) => s.address.toolId).join(", ");
    throw new SteamharnessError("not_found", `unknown capability tool id ${JSON.stringify(toolId)}; known ids: ${known}`, { data: { toolId } });
  }
  return spec;
}

/** What decides which capabilities a turn shows. */
export interface CapabilityExposure {
  /** Include cross-session memory; only when the host has a memory store. */
  globalMemory?: boolean;
  /** Whether the host bridge resolved (CAP-8). */
  hostBridgeAvailable?: boolean;
}

/**
 * The tool ids a turn exposes: knowledge, KV and cards always; memory with `globalMemory`; host
 * configuration when the bridge is available.
 *
 * @example
 * exposedCapabilityToolIds({ globalMemory: true }) // knowledge, kv, memory, present_card ids
 */
export function exposedCapabilityToolIds(exposure: CapabilityExposure = {}): CapabilityToolId[] {
  return CAPABILITY_SPECS.map((spec) => spec.address.toolId).filter((toolId) => {
    if (toolId === CAPABILITY_TOOL_IDS.memory) return exposure.globalMemory === true;
    if (toolId === CAPABILITY_TOOL_IDS.hostConfiguration) return exposure.hostBridgeAvailable === true;
    return true;
  });
}
