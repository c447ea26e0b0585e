import type { ConfigurationField } from "../domain/configuration/fields.js";
import type {
  ProjectConfiguration,
  ProjectConfigurationCreate,
  ProjectConfigurationExport,
  ProjectConfigurationLookup,
  ProjectConfigurationOverview,
  ProjectConfigurationUpdate,
} from "../domain/configuration/configuration-records.js";

export type { ConfigurationField } from "../domain/configuration/fields.js";
export type {
  ProjectConfiguration,
  ProjectConfigurationCreate,
  ProjectConfigurationExport,
  ProjectConfigurationLookup,
  ProjectConfigurationOverview,
  ProjectConfigurationUpdate,
} from "../domain/configuration/configuration-records.js";

/**
 * The project configuration store port (CFG-1): typed fields, named configurations, a current
 * configuration, revisions and full JSON import/export, per project id.
 *
 * Rules every adapter keeps (the contract suite `runProjectConfigurationStoreContract` checks them):
 * - Reads never fail for an unknown project: it reads as revision 0 with no fields or configurations.
 * - Every write names what it changes and the revision its caller read. A stale revision fails
 *   with `conflict` and changes nothing — never a silent overwrite, also across processes
 *   (the check and the write are one atomic step).
 * - A deleted configuration is gone for reads (`get` → `null`); writes naming it fail with
 *   `not_found` (checked before the revision). `lookup` tells deleted from never created.
 * - Values are validated against the project's fields on every write (`input_validation` with
 *   `field` = `values/<key>`); invalid input changes nothing. Ids and names are 1–200 UTF-16 units.
 * - Returned objects are copies; mutating them never changes the store.
 * - Adapter faults surface as `storage_failure` with `cause`.
 */
export interface ProjectConfigurationStore {
  /** The project's fields, current configuration id, live configurations and project revision. */
  read(projectId: string): Promise<ProjectConfigurationOverview>;
  /** One live configuration, or `null` when it does not exist or was deleted. */
  get(projectId: string, configurationId: string): Promise<ProjectConfiguration | null>;
  /** Whether an id is live, deleted or absent. */
  lookup(projectId: string, configurationId: string): Promise<ProjectConfigurationLookup>;
  /**
   * Creates a configuration (revision 1, or the deleted id's last revision + 1). The first live
   * configuration of a project becomes current. An id that is live → `conflict`.
   */
  create(projectId: string, input: ProjectConfigurationCreate): Promise<ProjectConfiguration>;
  /** Changes name and/or values when `expectedRevision` is the configuration's revision; revision +1. */
  update(projectId: string, configurationId: string, input: ProjectConfigurationUpdate): Promise<ProjectConfiguration>;
  /**
   * Deletes when `expectedRevision` is the configuration's revision. Deleting the current
   * configuration leaves none current (`currentConfigurationId: null`); nothing is chosen silently.
   */
  delete(projectId: string, configurationId: string, input: { expectedRevision: number }): Promise<void>;
  /**
   * Makes a configuration current when `expectedRevision` is its revision (you select what you
   * read). The configuration's revision does not change; the project revision does.
   */
  select(projectId: string, configurationId: string, input: { expectedRevision: number }): Promise<ProjectConfigurationOverview>;
  /**
   * Replaces the declared fields when `expectedRevision` is the project revision. Every live
   * configuration must still be valid under the new fields, else `input_validation` naming it.
   */
  setFields(projectId: string, fields: ConfigurationField[], input: { expectedRevision: number }): Promise<ProjectConfigurationOverview>;
  /** The whole project as a versioned JSON document (see `parseProjectConfigurationExport`). */
  exportProject(projectId: string): Promise<ProjectConfigurationExport>;
  /**
   * Replaces the whole project (fields, configurations, current) with a document from
   * `exportProject` when `expectedRevision` is the project revision. Configurations missing from
   * the document are deleted; imported ones get their existing revision + 1 (document revisions
   * are informational). A malformed document → `input_validation`, nothing changes.
   */
  importProject(projectId: string, document: unknown, input: { expectedRevision: number }): Promise<ProjectConfigurationOverview>;
  /** Releases the backend; later calls fail. Optional for stores without resources. */
  close?(): Promise<void>;
}
