/**
 * What a host shows for a kanban or project card (CAP-10, CFG-3): the card's
 * `target.configurationId` is previewed without switching the current configuration; without
 * an id the current configuration at opening time is used; a configuration deleted since the card
 * was made is reported unavailable on the card — never replaced by another one.
 */
import { configurationCardStatus, type ConfigurationCardStatus } from "../../../domain/configuration/card-availability.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import type { BridgeStorageLocation } from "./bridge-handlers.js";

/** The part of a `workflow-ui_present_card` upsert command a configuration card needs. */
export interface ConfigurationCardCommand {
  kind?: unknown;
  target?: { source?: unknown; projectId?: unknown; configurationId?: unknown } | null;
}

/** Where cards resolve: stores by `target.source`, and the host's current project for `source: "current"`. */
export interface ConfigurationCardContext {
  stores: Partial<Record<BridgeStorageLocation, ProjectConfigurationStore>>;
  /** The project `source: "current"` (and a card without `projectId`) refers to. */
  currentProjectId?: string;
}

/**
 * Resolves a kanban/project card command to its status. Throws `input_validation` for other card
 * kinds and `unavailable` when the card's storage location is not served here.
 *
 * @example
 * const status = await resolveConfigurationCard(command, { stores: { local: store }, currentProjectId });
 * if (!status.available) render(`Unavailable: ${status.message}`);
 */
export async function resolveConfigurationCard(command: ConfigurationCardCommand, context: ConfigurationCardContext): Promise<ConfigurationCardStatus> {
  if (command.kind !== "kanban" && command.kind !== "project") {
    throw new SteamharnessError("input_validation", `only kanban and project cards show a configuration (got ${JSON.stringify(command.kind)})`, { field: "kind" });
  }
  const target = command.target ?? {};
  const location: BridgeStorageLocation = target.source === "server" ? "server" : "local";
  const store = context.stores[location];
  if (!store) throw new SteamharnessError("unavailable", `no ${location} configuration storage to resolve this card`, { field: "target.source" });
  const projectId = typeof target.projectId === "string" && target.source !== "current" ? target.projectId : context.currentProjectId;
  if (projectId === undefined) throw new SteamharnessError("input_validation", "the card names no project and there is no current project", { field: "target.projectId" });
  const overview = await store.read(projectId);
  if (typeof target.configurationId !== "string") {
    const current = overview.configurations.find((c) => c.configurationId === overview.currentConfigurationId) ?? null;
    return { available: true, configuration: current, current: current !== null };
  }
  return configurationCardStatus(await store.lookup(projectId, target.configurationId), overview.currentConfigurationId);
}
