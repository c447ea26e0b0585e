/**
 * The JSON import/export format of a project's configurations (CFG-1), versioned so a later
 * steamharness can read older documents. A document carries the fields, the current
 * configuration id and every live configuration; revisions and times are informational (an
 * import gives each configuration its stored revision + 1, so holders of old revisions conflict).
 *
 * ```json
 * { "format": "steamharness.project-configuration", "version": 1, "projectId": "…", "revision": 7,
 *   "exportedAt": "2026-11-30T05:00:00.000Z", "fields": [{ "key": "title", "type": "string" }],
 *   "currentConfigurationId": "main",
 *   "configurations": [{ "configurationId": "main", "name": "Main", "revision": 3, "values": { "title": "Roadmap" } }] }
 * ```
 */
import { Type } from "@sinclair/typebox";
import { isSteamharnessError } from "../errors.js";
import type { JsonValue } from "../json.js";
import type { ProjectConfigurationExport } from "./configuration-records.js";
import type { ProjectConfigurationState } from "./configuration-state.js";

export type { ProjectConfigurationExport } from "./configuration-records.js";
import { checkIdentifier, overviewOf } from "./configuration-state.js";
import { CONFIGURATION_LIMITS, checkConfigurationValues, parseConfigurationFields, type ConfigurationField } from "./fields.js";
import { checkSchema, configurationInvalid } from "./schema-check.js";

/** The `format` marker of an export document. */
export const PROJECT_CONFIGURATION_FORMAT = "steamharness.project-configuration";
/** The export format version this library writes and the newest it reads. */
export const PROJECT_CONFIGURATION_FORMAT_VERSION = 1;

const ExportSchema = Type.Object(
  {
    format: Type.Literal(PROJECT_CONFIGURATION_FORMAT),
    version: Type.Integer({ minimum: 1 }),
    projectId: Type.Optional(Type.String()),
    revision: Type.Optional(Type.Integer({ minimum: 0 })),
    exportedAt: Type.Optional(Type.String()),
    fields: Type.Array(Type.Unknown()),
    currentConfigurationId: Type.Union([Type.String(), Type.Null()]),
    configurations: Type.Array(
      Type.Object(
        {
          configurationId: Type.String(),
          name: Type.String(),
          revision: Type.Optional(Type.Integer({ minimum: 1 })),
          values: Type.Record(Type.String(), Type.Unknown()),
        },
        { additionalProperties: false },
      ),
      { maxItems: CONFIGURATION_LIMITS.configurations },
    ),
  },
  { additionalProperties: false },
);

/**
 * The export document of a state.
 *
 * @example
 * const document = exportProjectConfiguration(state, Date.now());
 */
export function exportProjectConfiguration(state: ProjectConfigurationState, now: number): ProjectConfigurationExport {
  const overview = overviewOf(state);
  return {
    format: PROJECT_CONFIGURATION_FORMAT,
    version: PROJECT_CONFIGURATION_FORMAT_VERSION,
    projectId: state.projectId,
    revision: state.revision,
    exportedAt: new Date(now).toISOString(),
    fields: overview.fields,
    currentConfigurationId: overview.currentConfigurationId,
    configurations: overview.configurations.map((c) => ({ configurationId: c.configurationId, name: c.name, revision: c.revision, values: c.values })),
  };
}

/**
 * Validates an import document completely — structure, version, fields, every configuration's
 * values against those fields, unique ids, a current id that is imported — and returns it typed.
 * Throws `input_validation` with the path (`configurations/2/values/title`); a newer version is
 * refused by name.
 *
 * @example
 * const document = parseProjectConfigurationExport(JSON.parse(text));
 */
export function parseProjectConfigurationExport(value: unknown): ProjectConfigurationExport {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const version = (value as { version?: unknown }).version;
    if (typeof version === "number" && version > PROJECT_CONFIGURATION_FORMAT_VERSION) {
      throw configurationInvalid("version", `export version ${version} is newer than this steamharness reads (${PROJECT_CONFIGURATION_FORMAT_VERSION}); upgrade steamharness`);
    }
  }
  const document = checkSchema(ExportSchema, value, "");
  const fields = parseConfigurationFields(document.fields);
  const ids = new Set<string>();
  const configurations = document.configurations.map((item, index) => {
    const at = `configurations/${index}`;
    prefixed(at, () => checkIdentifier(item.configurationId, "configurationId"));
    if (ids.has(item.configurationId)) throw configurationInvalid(`${at}/configurationId`, `configuration "${item.configurationId}" appears twice`);
    ids.add(item.configurationId);
    if (item.name.trim() === "" || item.name.length > CONFIGURATION_LIMITS.name) throw configurationInvalid(`${at}/name`, `${at}/name must have 1 to ${CONFIGURATION_LIMITS.name} characters`);
    const values = prefixed(at, () => checkConfigurationValues(fields, item.values));
    return { configurationId: item.configurationId, name: item.name, ...(item.revision === undefined ? {} : { revision: item.revision }), values };
  });
  if (document.currentConfigurationId !== null && !ids.has(document.currentConfigurationId)) {
    throw configurationInvalid("currentConfigurationId", `currentConfigurationId "${document.currentConfigurationId}" is not among the imported configurations`);
  }
  return { ...document, fields, configurations };
}

function prefixed<T>(at: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!isSteamharnessError(error)) throw error;
    throw configurationInvalid(`${at}/${error.field ?? ""}`, `${at}: ${error.message.replace("[steamharness] [configuration] ", "")}`);
  }
}
