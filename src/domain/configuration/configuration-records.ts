/**
 * The records of a project's configurations (CFG-1): what the configuration store port returns
 * and the domain computes. A leaf module (types only), so ports and domain both use it without
 * importing each other.
 */
import type { JsonValue } from "../json.js";
import type { ConfigurationField } from "./fields.js";

/**
 * One named configuration of a project (CFG-1). `revision` starts at 1 on create and grows by
 * exactly 1 on every write to this configuration (update, and re-creation or import after a
 * delete continue from the last revision, so an old revision never becomes valid again).
 * Times are epoch milliseconds from the store's clock.
 */
export interface ProjectConfiguration {
  projectId: string;
  configurationId: string;
  name: string;
  /** The configuration's own values (field defaults are not filled in; a snapshot does that). */
  values: Record<string, JsonValue>;
  revision: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * Everything about one project's configurations. `revision` is the project revision: 0 for a
 * project never written, +1 on every write of any kind in the project (create, update, delete,
 * select, setFields, import). `configurations` are the live ones, in creation order (ties by id).
 */
export interface ProjectConfigurationOverview {
  projectId: string;
  revision: number;
  /** The declared fields (without the built-in `STEAMHARNESS_AGENT_MODELS` unless declared). */
  fields: ConfigurationField[];
  /** The current configuration, or `null` when none is selected. */
  currentConfigurationId: string | null;
  configurations: ProjectConfiguration[];
}

/** Where a configuration id stands: live, deleted (a tombstone keeps its last revision) or never created. */
export type ProjectConfigurationLookup =
  | { status: "live"; configuration: ProjectConfiguration }
  | { status: "deleted"; configurationId: string; revision: number; deletedAt: number }
  | { status: "absent"; configurationId: string };

/** Input of `ProjectConfigurationStore.create`. */
export interface ProjectConfigurationCreate {
  configurationId: string;
  name: string;
  values: Record<string, JsonValue>;
}

/** Input of `ProjectConfigurationStore.update`: the revision read, and what changes. */
export interface ProjectConfigurationUpdate {
  expectedRevision: number;
  name?: string;
  /** Replaces all values (not a merge). */
  values?: Record<string, JsonValue>;
}

/** An export document (version 1). */
export interface ProjectConfigurationExport {
  format: "steamharness.project-configuration";
  version: number;
  projectId?: string;
  revision?: number;
  exportedAt?: string;
  fields: ConfigurationField[];
  currentConfigurationId: string | null;
  configurations: Array<{ configurationId: string; name: string; revision?: number; values: Record<string, JsonValue> }>;
}

