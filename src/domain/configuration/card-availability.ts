/**
 * Whether a kanban or project card's configuration can still be shown (CAP-10, CFG-3): a card
 * whose `target.configurationId` names a deleted (or never created) configuration reports itself
 * unavailable instead of silently previewing another one; a card without an id previews the
 * current configuration at the time it is opened.
 */
import type { ProjectConfiguration, ProjectConfigurationLookup } from "../../ports/project-configuration-store.js";

/** What a kanban/project card shows: its configuration, or why it cannot. */
export type ConfigurationCardStatus =
  | { available: true; configuration: ProjectConfiguration | null; current: boolean }
  | { available: false; configurationId: string; reason: "deleted" | "not_found"; message: string };

/**
 * The card status of a lookup result (`lookup` of the card's configuration id).
 *
 * @example
 * configurationCardStatus(await store.lookup(projectId, "roadmap"), currentId)
 * // { available: false, configurationId: "roadmap", reason: "deleted", message: "…" }
 */
export function configurationCardStatus(lookup: ProjectConfigurationLookup, currentConfigurationId: string | null): ConfigurationCardStatus {
  if (lookup.status === "live") {
    return { available: true, configuration: lookup.configuration, current: lookup.configuration.configurationId === currentConfigurationId };
  }
  const reason = lookup.status === "deleted" ? "deleted" : "not_found";
  const message =
    reason === "deleted"
      ? `configuration "${lookup.configurationId}" was deleted; this card is unavailable`
      : `configuration "${lookup.configurationId}" does not exist; this card is unavailable`;
  return { available: false, configurationId: lookup.configurationId, reason, message };
}
