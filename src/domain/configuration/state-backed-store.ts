/**
 * Builds the `ProjectConfigurationStore` port on top of a tiny backend that can read a project's
 * state and apply a change to it atomically. Every adapter (memory, SQLite) supplies only that
 * backend, so the port's rules — validation, revisions, conflicts, tombstones, import/export —
 * live once, here, over {@link applyConfigurationCommand}.
 */
import type { Clock } from "../../ports/clock.js";
import type { ProjectConfigurationStore } from "../../ports/project-configuration-store.js";
import {
  applyConfigurationCommand,
  checkIdentifier,
  lookupIn,
  overviewOf,
  type ProjectConfigurationChange,
  type ProjectConfigurationCommand,
  type ProjectConfigurationState,
} from "./configuration-state.js";
import { exportProjectConfiguration, parseProjectConfigurationExport } from "./export-format.js";

/** What an adapter provides: state reads and atomic read-apply-write. */
export interface ConfigurationStateBackend {
  /** The project's state (the empty state for a project never written). */
  load(projectId: string): Promise<ProjectConfigurationState>;
  /**
   * Runs `apply` on the freshest state and persists the result, with no other writer (in any
   * process) in between. If `apply` throws, nothing is written and the error is rethrown.
   */
  transact(projectId: string, apply: (state: ProjectConfigurationState) => ProjectConfigurationChange): Promise<ProjectConfigurationState>;
  close?(): Promise<void>;
}

/**
 * The port over a backend.
 *
 * @example
 * const store = createStateBackedConfigurationStore(backend, createSystemClock());
 */
export function createStateBackedConfigurationStore(backend: ConfigurationStateBackend, clock: Clock): ProjectConfigurationStore {
  const load = async (projectId: string) => {
    checkIdentifier(projectId, "projectId");
    return backend.load(projectId);
  };
  const write = async (projectId: string, command: ProjectConfigurationCommand) => {
    checkIdentifier(projectId, "projectId");
    return backend.transact(projectId, (state) => applyConfigurationCommand(state, command, clock.now()));
  };
  const live = (state: ProjectConfigurationState, configurationId: string) => {
    const found = lookupIn(state, configurationId);
    if (found.status !== "live") throw new Error(`[steamharness] [configuration] internal: ${configurationId} is ${found.status} after its write`);
    return found.configuration;
  };
  const store: ProjectConfigurationStore = {
    async read(projectId) {
      return overviewOf(await load(projectId));
    },
    async get(projectId, configurationId) {
      checkIdentifier(configurationId, "configurationId");
      const found = lookupIn(await load(projectId), configurationId);
      return found.status === "live" ? found.configuration : null;
    },
    async lookup(projectId, configurationId) {
      checkIdentifier(configurationId, "configurationId");
      return lookupIn(await load(projectId), configurationId);
    },
    async create(projectId, input) {
      const state = await write(projectId, { operation: "create", configurationId: input?.configurationId, name: input?.name, values: input?.values });
      return live(state, input.configurationId);
    },
    async update(projectId, configurationId, input) {
      const state = await write(projectId, { operation: "update", configurationId, expectedRevision: input?.expectedRevision, name: input?.name, values: input?.values });
      return live(state, configurationId);
    },
    async delete(projectId, configurationId, input) {
      await write(projectId, { operation: "delete", configurationId, expectedRevision: input?.expectedRevision });
    },
    async select(projectId, configurationId, input) {
      return overviewOf(await write(projectId, { operation: "select", configurationId, expectedRevision: input?.expectedRevision }));
    },
    async setFields(projectId, fields, input) {
      return overviewOf(await write(projectId, { operation: "set_fields", fields, expectedRevision: input?.expectedRevision }));
    },
    async exportProject(projectId) {
      return exportProjectConfiguration(await load(projectId), clock.now());
    },
    async importProject(projectId, document, input) {
      const parsed = parseProjectConfigurationExport(document);
      const command: ProjectConfigurationCommand = {
        operation: "replace",
        fields: parsed.fields,
        currentConfigurationId: parsed.currentConfigurationId,
        configurations: parsed.configurations,
        expectedRevision: input?.expectedRevision,
      };
      return overviewOf(await write(projectId, command));
    },
  };
  if (backend.close) store.close = () => backend.close!();
  return store;
}
