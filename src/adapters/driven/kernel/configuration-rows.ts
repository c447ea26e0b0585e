/**
 * The project configuration store's rows, mapped once (ARCH-3): the domain's
 * `createStateBackedConfigurationStore` owns the port's rules; the SQL row drivers read a
 * project's rows into its state and write the records a command changed, through these two maps.
 */
import { emptyProjectConfigurationState, type ConfigurationRecord, type ProjectConfigurationState } from "../../../domain/configuration/configuration-state.js";

/** The `configuration_projects` row: fields as JSON text; `accountId` "" outside the configuration server. */
export interface ConfigurationProjectRow {
  accountId: string;
  projectId: string;
  revision: number;
  fields: string;
  currentConfigurationId: string | null;
  updatedAt: number;
}

/** A `configurations` row: values as JSON text; a tombstone has `deletedAt`. */
export type ConfigurationRow = Omit<ConfigurationRecord, "values"> & { accountId: string; projectId: string; values: string };

/**
 * A project's state from its rows (the empty state without a project row).
 *
 * @example
 * const state = configurationStateOf("p", projectRow, configurationRows);
 */
export function configurationStateOf(projectId: string, project: ConfigurationProjectRow | undefined, rows: readonly ConfigurationRow[]): ProjectConfigurationState {
  if (!project) return emptyProjectConfigurationState(projectId);
  return {
    projectId,
    revision: project.revision,
    fields: JSON.parse(project.fields),
    currentConfigurationId: project.currentConfigurationId,
    updatedAt: project.updatedAt,
    records: rows.map(({ accountId: _account, projectId: _project, values, ...record }): ConfigurationRecord => ({ ...record, values: JSON.parse(values) })),
  };
}

/**
 * The rows to upsert after a command: the project row and one row per changed configuration,
 * keyed by the account that owns the project ("" for a host's own store).
 *
 * @example
 * const { project, configurations } = configurationRowsOf(next, changedIds, "");
 */
export function configurationRowsOf(state: ProjectConfigurationState, changedIds: readonly string[], accountId = ""): { project: ConfigurationProjectRow; configurations: ConfigurationRow[] } {
  const { projectId, revision, fields, currentConfigurationId, updatedAt } = state;
  const changed = new Set(changedIds);
  return {
    project: { accountId, projectId, revision, fields: JSON.stringify(fields), currentConfigurationId, updatedAt },
    configurations: state.records.filter((record) => changed.has(record.configurationId)).map((record) => ({ ...record, accountId, projectId, values: JSON.stringify(record.values) })),
  };
}
