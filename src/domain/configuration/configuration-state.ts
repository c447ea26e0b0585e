/**
 * The pure write rules of the project configuration store (CFG-1), shared by every adapter: an
 * adapter loads a project's state, applies one command here and saves the records it names as
 * changed — inside one atomic step. So the memory and SQLite stores cannot disagree on revisions,
 * conflicts, tombstones or validation.
 */
import { SteamharnessError } from "../errors.js";
import type { JsonValue } from "../json.js";
import type {
  ProjectConfiguration,
  ProjectConfigurationLookup,
  ProjectConfigurationOverview,
} from "./configuration-records.js";
import { CONFIGURATION_LIMITS, checkConfigurationValues, parseConfigurationFields, type ConfigurationField } from "./fields.js";
import { cloneJson, configurationInvalid } from "./schema-check.js";

/** One stored configuration, live (`deletedAt: null`) or a tombstone keeping its last revision. */
export interface ConfigurationRecord {
  configurationId: string;
  name: string;
  values: Record<string, JsonValue>;
  revision: number;
  /** Listing order: creation order, or the document order of the last import. */
  position: number;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}

/** A project's whole configuration state; `records` in any order (reads sort by `position`). */
export interface ProjectConfigurationState {
  projectId: string;
  revision: number;
  fields: ConfigurationField[];
  currentConfigurationId: string | null;
  updatedAt: number;
  records: ConfigurationRecord[];
}

/** One write. Configuration writes check the configuration's revision; fields and import the project's. */
export type ProjectConfigurationCommand =
  | { operation: "create"; configurationId: string; name: string; values: unknown }
  | { operation: "update"; configurationId: string; expectedRevision: number; name?: string; values?: unknown }
  | { operation: "delete"; configurationId: string; expectedRevision: number }
  | { operation: "select"; configurationId: string; expectedRevision: number }
  | { operation: "set_fields"; fields: unknown; expectedRevision: number }
  | { operation: "replace"; fields: ConfigurationField[]; currentConfigurationId: string | null; configurations: Array<{ configurationId: string; name: string; values: unknown }>; expectedRevision: number };

/** The state after a command and the configuration ids whose records changed. */
export interface ProjectConfigurationChange {
  state: ProjectConfigurationState;
  changedIds: string[];
}

/**
 * The state of a project never written: revision 0, nothing declared.
 *
 * @example
 * emptyProjectConfigurationState("p1").revision // 0
 */
export function emptyProjectConfigurationState(projectId: string): ProjectConfigurationState {
  return { projectId, revision: 0, fields: [], currentConfigurationId: null, updatedAt: 0, records: [] };
}

/**
 * Applies one command to a state without mutating it. Throws `input_validation`, `not_found` or
 * `conflict` (and changes nothing) when the command may not run.
 *
 * @example
 * const { state } = applyConfigurationCommand(emptyProjectConfigurationState("p"), { operation: "create", configurationId: "a", name: "A", values: {} }, Date.now());
 */
export function applyConfigurationCommand(current: ProjectConfigurationState, command: ProjectConfigurationCommand, now: number): ProjectConfigurationChange {
  const state = cloneJson(current);
  const changedIds: string[] = [];
  const touch = (record: ConfigurationRecord) => {
    record.updatedAt = now;
    changedIds.push(record.configurationId);
  };
  switch (command.operation) {
    case "create": {
      checkIdentifier(command.configurationId, "configurationId");
      checkName(command.name);
      const existing = state.records.find((r) => r.configurationId === command.configurationId);
      if (existing && existing.deletedAt === null) {
        throw new SteamharnessError("conflict", `[steamharness] [configuration] configuration "${command.configurationId}" already exists (revision ${existing.revision})`, {
          field: "configurationId",
          data: { currentRevision: existing.revision },
        });
      }
      if (!existing && liveCount(state) >= CONFIGURATION_LIMITS.configurations) {
        throw configurationInvalid("configurationId", `a project holds at most ${CONFIGURATION_LIMITS.configurations} configurations`);
      }
      const values = checkConfigurationValues(state.fields, command.values);
      const record: ConfigurationRecord = existing ?? { configurationId: command.configurationId, name: "", values: {}, revision: 0, position: 0, createdAt: now, updatedAt: now, deletedAt: null };
      // A re-created id starts a new life (new creation time, last in order) but continues the old revisions.
      Object.assign(record, { name: command.name, values, revision: record.revision + 1, position: nextPosition(state), createdAt: now, deletedAt: null });
      if (!existing) state.records.push(record);
      if (state.currentConfigurationId === null) state.currentConfigurationId = record.configurationId;
      touch(record);
      break;
    }
    case "update": {
      const record = requireLive(state, command.configurationId, command.expectedRevision);
      if (command.name !== undefined) checkName(command.name);
      const values = command.values === undefined ? record.values : checkConfigurationValues(state.fields, command.values);
      Object.assign(record, { name: command.name ?? record.name, values, revision: record.revision + 1 });
      touch(record);
      break;
    }
    case "delete": {
      const record = requireLive(state, command.configurationId, command.expectedRevision);
      record.deletedAt = now;
      record.values = {};
      if (state.currentConfigurationId === record.configurationId) state.currentConfigurationId = null;
      touch(record);
      break;
    }
    case "select": {
      const record = requireLive(state, command.configurationId, command.expectedRevision);
      state.currentConfigurationId = record.configurationId;
      break;
    }
    case "set_fields": {
      checkProjectRevision(state, command.expectedRevision);
      const fields = parseConfigurationFields(command.fields);
      for (const record of state.records.filter((r) => r.deletedAt === null)) {
        try {
          checkConfigurationValues(fields, record.values);
        } catch (error) {
          throw new SteamharnessError("input_validation", `[steamharness] [configuration] configuration "${record.configurationId}" would not fit the new fields: ${(error as Error).message}`, {
            field: (error as SteamharnessError).field ?? "fields",
            data: { configurationId: record.configurationId },
          });
        }
      }
      state.fields = fields;
      break;
    }
    case "replace": {
      checkProjectRevision(state, command.expectedRevision);
      replaceAll(state, command, now, changedIds);
      break;
    }
  }
  state.revision += 1;
  state.updatedAt = now;
  return { state, changedIds };
}

/**
 * The port's overview of a state: live configurations only.
 *
 * @example
 * overviewOf(state).configurations.map((c) => c.configurationId)
 */
export function overviewOf(state: ProjectConfigurationState): ProjectConfigurationOverview {
  return {
    projectId: state.projectId,
    revision: state.revision,
    fields: cloneJson(state.fields),
    currentConfigurationId: state.currentConfigurationId,
    configurations: state.records
      .filter((r) => r.deletedAt === null)
      .sort((a, b) => a.position - b.position)
      .map((r) => configurationOf(state.projectId, r)),
  };
}

/**
 * Where a configuration id stands in a state.
 *
 * @example
 * lookupIn(state, "a").status // "live" | "deleted" | "absent"
 */
export function lookupIn(state: ProjectConfigurationState, configurationId: string): ProjectConfigurationLookup {
  const record = state.records.find((r) => r.configurationId === configurationId);
  if (!record) return { status: "absent", configurationId };
  if (record.deletedAt !== null) return { status: "deleted", configurationId, revision: record.revision, deletedAt: record.deletedAt };
  return { status: "live", configuration: configurationOf(state.projectId, record) };
}

/**
 * The port's view of one live record (a copy).
 *
 * @example
 * configurationOf("p", record).revision
 */
export function configurationOf(projectId: string, record: ConfigurationRecord): ProjectConfiguration {
  const { deletedAt: _deleted, position: _position, ...rest } = cloneJson(record);
  return { projectId, ...rest };
}

/**
 * Throws `input_validation` unless `value` is a non-empty id of at most 200 UTF-16 units without
 * control characters.
 *
 * @example
 * checkIdentifier("roadmap", "configurationId");
 */
export function checkIdentifier(value: unknown, field: string): asserts value is string {
  if (typeof value !== "string" || value.length === 0) throw configurationInvalid(field, `${field} must be a non-empty string`);
  if (value.length > CONFIGURATION_LIMITS.configurationId) throw configurationInvalid(field, `${field} is longer than ${CONFIGURATION_LIMITS.configurationId} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) throw configurationInvalid(field, `${field} must not contain control characters`);
}

function checkName(value: unknown): asserts value is string {
  if (typeof value !== "string" || value.trim().length === 0) throw configurationInvalid("name", "name must be a non-empty string");
  if (value.length > CONFIGURATION_LIMITS.name) throw configurationInvalid("name", `name is longer than ${CONFIGURATION_LIMITS.name} characters`);
}

function checkRevisionInput(value: unknown): asserts value is number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw configurationInvalid("expectedRevision", "expectedRevision must be a non-negative integer (the revision you read)");
  }
}

function checkProjectRevision(state: ProjectConfigurationState, expected: number): void {
  checkRevisionInput(expected);
  if (expected !== state.revision) {
    throw new SteamharnessError("conflict", `[steamharness] [configuration] project "${state.projectId}" is at revision ${state.revision}, not ${expected}; read it again`, {
      field: "expectedRevision",
      data: { currentRevision: state.revision },
    });
  }
}

function requireLive(state: ProjectConfigurationState, configurationId: string, expected: number): ConfigurationRecord {
  checkIdentifier(configurationId, "configurationId");
  checkRevisionInput(expected);
  const record = state.records.find((r) => r.configurationId === configurationId);
  if (!record || record.deletedAt !== null) {
    const why = record ? "was deleted" : "does not exist";
    throw new SteamharnessError("not_found", `[steamharness] [configuration] configuration "${configurationId}" ${why}`, {
      field: "configurationId",
      data: { deleted: record !== undefined },
    });
  }
  if (record.revision !== expected) {
    throw new SteamharnessError("conflict", `[steamharness] [configuration] configuration "${configurationId}" is at revision ${record.revision}, not ${expected}; read it again`, {
      field: "expectedRevision",
      data: { currentRevision: record.revision },
    });
  }
  return record;
}

function nextPosition(state: ProjectConfigurationState): number {
  return state.records.reduce((max, r) => Math.max(max, r.position + 1), 0);
}

function liveCount(state: ProjectConfigurationState): number {
  return state.records.filter((r) => r.deletedAt === null).length;
}

function replaceAll(state: ProjectConfigurationState, command: Extract<ProjectConfigurationCommand, { operation: "replace" }>, now: number, changedIds: string[]): void {
  const incoming = new Map(command.configurations.map((c) => [c.configurationId, c]));
  for (const record of state.records) {
    if (record.deletedAt === null && !incoming.has(record.configurationId)) {
      Object.assign(record, { deletedAt: now, values: {}, updatedAt: now });
      changedIds.push(record.configurationId);
    }
  }
  const base = nextPosition(state);
  for (const [index, item] of command.configurations.entries()) {
    const values = withPath(() => checkConfigurationValues(command.fields, item.values), `configurations/${index}/`);
    const existing = state.records.find((r) => r.configurationId === item.configurationId);
    const record = existing ?? { configurationId: item.configurationId, name: item.name, values, revision: 0, position: 0, createdAt: now, updatedAt: now, deletedAt: null };
    if (record.deletedAt !== null) record.createdAt = now;
    Object.assign(record, { name: item.name, values, revision: record.revision + 1, position: base + index, updatedAt: now, deletedAt: null });
    if (!existing) state.records.push(record);
    changedIds.push(record.configurationId);
  }
  state.fields = cloneJson(command.fields);
  state.currentConfigurationId = command.currentConfigurationId;
}

function withPath<T>(run: () => T, prefix: string): T {
  try {
    return run();
  } catch (error) {
    const e = error as SteamharnessError;
    throw configurationInvalid(`${prefix}${e.field ?? ""}`, e.message.replace("[steamharness] [configuration] ", `${prefix}`));
  }
}
