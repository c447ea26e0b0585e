/**
 * `ProjectConfigurationSnapshot` (CFG-2, AG-4): what a run takes from the project configuration
 * at its start and keeps — the resolved values (field defaults filled in), the typed
 * `STEAMHARNESS_AGENT_MODELS` list and the `agentModelPolicy` declared on that field. A snapshot
 * is a frozen plain JSON value: saving it with the run and parsing it back on resume gives the
 * same snapshot, whatever the configuration became in between.
 */
import { Type, type Static } from "@sinclair/typebox";
import type { JsonValue } from "../json.js";
import { SteamharnessError } from "../errors.js";
import type { Clock } from "../../ports/clock.js";
import type { ProjectConfigurationOverview, ProjectConfigurationStore } from "../../ports/project-configuration-store.js";
import { AgentModelListSchema, STEAMHARNESS_AGENT_MODELS, type AgentModelConfigEntry, type AgentModelPolicy } from "./agent-models.js";
import { effectiveFields, resolveConfigurationValues } from "./fields.js";
import { checkSchema, cloneJson } from "./schema-check.js";

/** TypeBox schema of a saved snapshot (version 1). */
export const ProjectConfigurationSnapshotSchema = Type.Object({
  version: Type.Literal(1),
  projectId: Type.String({ minLength: 1 }),
  /** The configuration the run used, or `null` when the project had none current. */
  configurationId: Type.Union([Type.String(), Type.Null()]),
  configurationName: Type.Union([Type.String(), Type.Null()]),
  /** The configuration's revision (0 without a configuration). */
  configurationRevision: Type.Integer({ minimum: 0 }),
  /** The project revision the snapshot was read at. */
  projectRevision: Type.Integer({ minimum: 0 }),
  /** When the run took it, epoch milliseconds. */
  takenAt: Type.Number(),
  values: Type.Record(Type.String(), Type.Unknown()),
  STEAMHARNESS_AGENT_MODELS: AgentModelListSchema,
  agentModelPolicy: Type.Object({ allowThirdParty: Type.Boolean() }, { additionalProperties: false }),
});

/** The configuration a run started with (CFG-2). Deeply frozen when made by this module. */
export type ProjectConfigurationSnapshot = Static<typeof ProjectConfigurationSnapshotSchema> & {
  values: Record<string, JsonValue>;
  STEAMHARNESS_AGENT_MODELS: AgentModelConfigEntry[];
  agentModelPolicy: AgentModelPolicy;
};

/** Options of {@link createProjectConfigurationSnapshot}. */
export interface SnapshotOptions {
  /** Which configuration to snapshot; default the current one. */
  configurationId?: string;
  /** The run's start time, epoch milliseconds (from the host's clock). */
  takenAt: number;
}

/**
 * Takes the snapshot of a project overview: the named (or current) configuration's values with
 * field defaults, its model list and the model policy. A named configuration that is not live →
 * `not_found` (via `input_validation` when the id is malformed); no current configuration → a
 * snapshot of defaults only.
 *
 * @example
 * const snapshot = createProjectConfigurationSnapshot(await store.read(projectId), { takenAt: clock.now() });
 * snapshot.agentModelPolicy.allowThirdParty // true unless the model field says otherwise
 */
export function createProjectConfigurationSnapshot(overview: ProjectConfigurationOverview, options: SnapshotOptions): ProjectConfigurationSnapshot {
  const wanted = options.configurationId ?? overview.currentConfigurationId;
  const configuration = wanted === null ? undefined : overview.configurations.find((c) => c.configurationId === wanted);
  if (wanted !== null && !configuration) {
    throw configurationUnavailable(overview.projectId, wanted);
  }
  const values = resolveConfigurationValues(overview.fields, configuration?.values ?? {});
  const modelField = effectiveFields(overview.fields).find((f) => f.key === STEAMHARNESS_AGENT_MODELS);
  const allowThirdParty = modelField?.type === "agent-models" ? modelField.allowThirdParty ?? true : true;
  const snapshot: ProjectConfigurationSnapshot = {
    version: 1,
    projectId: overview.projectId,
    configurationId: configuration?.configurationId ?? null,
    configurationName: configuration?.name ?? null,
    configurationRevision: configuration?.revision ?? 0,
    projectRevision: overview.revision,
    takenAt: options.takenAt,
    values,
    STEAMHARNESS_AGENT_MODELS: cloneJson((values[STEAMHARNESS_AGENT_MODELS] as AgentModelConfigEntry[] | undefined) ?? []),
    agentModelPolicy: { allowThirdParty },
  };
  return deepFreeze(snapshot);
}

/**
 * Reads a snapshot saved with a run (JSON) back, validated and frozen. Throws `input_validation`
 * naming the path when it is not a version-1 snapshot.
 *
 * @example
 * const original = parseProjectConfigurationSnapshot(JSON.parse(saved));
 */
export function parseProjectConfigurationSnapshot(value: unknown): ProjectConfigurationSnapshot {
  const parsed = checkSchema(ProjectConfigurationSnapshotSchema, value, "snapshot") as ProjectConfigurationSnapshot;
  return deepFreeze(cloneJson(parsed));
}

/**
 * The `not_found` error of a configuration that a run or card names but that is gone.
 *
 * @example
 * throw configurationUnavailable("p", "old");
 */
export function configurationUnavailable(projectId: string, configurationId: string): SteamharnessError {
  return new SteamharnessError("not_found", `[steamharness] [configuration] configuration "${configurationId}" of project "${projectId}" is unavailable (deleted or never created)`, {
    field: "configurationId",
  });
}

/**
 * Reads the project from a store and takes its snapshot at `clock.now()` — what a run calls once,
 * at its start, before it keeps the result with the run.
 *
 * @example
 * const snapshot = await takeProjectConfigurationSnapshot(store, projectId, { clock });
 */
export async function takeProjectConfigurationSnapshot(
  store: Pick<ProjectConfigurationStore, "read">,
  projectId: string,
  options: { clock: Clock; configurationId?: string },
): Promise<ProjectConfigurationSnapshot> {
  const overview = await store.read(projectId);
  return createProjectConfigurationSnapshot(overview, {
    takenAt: options.clock.now(),
    ...(options.configurationId === undefined ? {} : { configurationId: options.configurationId }),
  });
}

/**
 * A snapshot handed over by the process that took it (a workflow host sends its worker the run's
 * snapshot inside the run message, CFG-2), made read-only as a taken one is. It is not checked
 * again: only the host's own messages reach a worker.
 *
 * @example
 * const snapshot = receivedProjectConfigurationSnapshot(message.run.snapshot);
 */
export function receivedProjectConfigurationSnapshot(snapshot: ProjectConfigurationSnapshot): ProjectConfigurationSnapshot {
  return deepFreeze(snapshot);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const item of Object.values(value as object)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
