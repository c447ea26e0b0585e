/**
 * The two operations of the host-configuration bridge (CFG-3), speaking the wire protocol in
 * `src/domain/capabilities/host-bridge.ts`: request bodies are validated with TypeBox, then run
 * against the project configuration store of the named storage location. Answers are plain JSON;
 * failures are `SteamharnessError`s the server turns into `{ error: { code, message, field? } }`.
 */
import { Type } from "@sinclair/typebox";
import { effectiveFields } from "../../../domain/configuration/fields.js";
import { checkSchema } from "../../../domain/configuration/schema-check.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonValue } from "../../../domain/json.js";
import type { ProjectConfiguration, ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";

/** Storage locations a bridge may serve. */
export type BridgeStorageLocation = "local" | "server";

/** The stores behind a bridge, by storage location, and the project used when a request names none. */
export interface BridgeBackend {
  stores: Partial<Record<BridgeStorageLocation, ProjectConfigurationStore>>;
  defaultProjectId?: string;
}

const Location = Type.Union([Type.Literal("local"), Type.Literal("server")]);
const Id = Type.String({ minLength: 1, maxLength: 200 });

const GetRequest = Type.Object(
  { storageLocation: Type.Optional(Location), projectId: Type.Optional(Id), configurationId: Type.Optional(Id) },
  { additionalProperties: false },
);

const ManageRequest = Type.Object(
  {
    operation: Type.Union([Type.Literal("create"), Type.Literal("update"), Type.Literal("delete"), Type.Literal("select")]),
    storageLocation: Location,
    projectId: Id,
    configurationId: Id,
    revision: Type.Integer({ minimum: 0 }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    values: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

/**
 * `get_configurations`: the project's fields, current id and configurations with their
 * revisions; with `configurationId`, only that one — a deleted or unknown id is `not_found`
 * ("unavailable"), never another configuration.
 *
 * @example
 * await handleGet(backend, { storageLocation: "local", projectId: "p" });
 */
export async function handleGet(backend: BridgeBackend, body: unknown): Promise<JsonValue> {
  const request = checkSchema(GetRequest, body, "");
  // A host on the configuration server (CFG-4) has no local store behind its bridge.
  const storageLocation = request.storageLocation ?? (backend.stores.local || !backend.stores.server ? "local" : "server");
  const store = storeFor(backend, storageLocation);
  const projectId = projectFor(backend, request.projectId);
  const overview = await store.read(projectId);
  let listed = overview.configurations;
  if (request.configurationId !== undefined) {
    const found = await store.lookup(projectId, request.configurationId);
    if (found.status !== "live") throw unavailable(request.configurationId, found.status === "deleted");
    listed = [found.configuration];
  }
  return {
    storageLocation,
    projectId,
    projectRevision: overview.revision,
    currentConfigurationId: overview.currentConfigurationId,
    fields: effectiveFields(overview.fields) as unknown as JsonValue,
    configurations: listed.map((c) => wireConfiguration(c, overview.currentConfigurationId)),
  };
}

/**
 * `manage_configurations`: create (revision 0), update, delete or select one configuration with
 * the revision the caller read. Answers the configuration after the change, with its new
 * revision (`deleted: true` after a delete).
 *
 * @example
 * await handleManage(backend, { operation: "update", storageLocation: "local", projectId: "p", configurationId: "main", revision: 1, values: {} });
 */
export async function handleManage(backend: BridgeBackend, body: unknown): Promise<JsonValue> {
  const request = checkSchema(ManageRequest, body, "");
  const store = storeFor(backend, request.storageLocation);
  const { projectId, configurationId, revision } = request;
  const where = { operation: request.operation, storageLocation: request.storageLocation, projectId };
  const writes = request.operation === "create" || request.operation === "update";
  if (!writes && (request.name !== undefined || request.values !== undefined)) {
    throw invalid(request.values !== undefined ? "values" : "name", `${request.operation} takes no name or values`);
  }
  switch (request.operation) {
    case "create": {
      if (revision !== 0) throw invalid("revision", "create takes revision 0 (the configuration does not exist yet)");
      if (request.values === undefined) throw invalid("values", "values are required to create a configuration");
      const created = await store.create(projectId, { configurationId, name: request.name ?? configurationId, values: request.values as Record<string, JsonValue> });
      return { ...where, ...wireConfiguration(created, (await store.read(projectId)).currentConfigurationId) };
    }
    case "update": {
      if (request.name === undefined && request.values === undefined) throw invalid("values", "update needs name or values");
      const updated = await store.update(projectId, configurationId, {
        expectedRevision: revision,
        ...(request.name === undefined ? {} : { name: request.name }),
        ...(request.values === undefined ? {} : { values: request.values as Record<string, JsonValue> }),
      });
      return { ...where, ...wireConfiguration(updated, (await store.read(projectId)).currentConfigurationId) };
    }
    case "delete": {
      await store.delete(projectId, configurationId, { expectedRevision: revision });
      const after = await store.lookup(projectId, configurationId);
      return { ...where, configurationId, deleted: true, revision: after.status === "deleted" ? after.revision : revision, current: false };
    }
    case "select": {
      const overview = await store.select(projectId, configurationId, { expectedRevision: revision });
      const selected = overview.configurations.find((c) => c.configurationId === configurationId)!;
      return { ...where, ...wireConfiguration(selected, overview.currentConfigurationId) };
    }
  }
}

function wireConfiguration(configuration: ProjectConfiguration, currentConfigurationId: string | null): { [key: string]: JsonValue } {
  return {
    configurationId: configuration.configurationId,
    name: configuration.name,
    revision: configuration.revision,
    current: configuration.configurationId === currentConfigurationId,
    values: configuration.values,
    updatedAt: configuration.updatedAt,
  };
}

function storeFor(backend: BridgeBackend, location: BridgeStorageLocation): ProjectConfigurationStore {
  const store = backend.stores[location];
  if (!store) throw new SteamharnessError("unavailable", `this host bridge has no ${location} configuration storage`, { field: "storageLocation" });
  return store;
}

function projectFor(backend: BridgeBackend, projectId: string | undefined): string {
  const chosen = projectId ?? backend.defaultProjectId;
  if (chosen === undefined) throw invalid("projectId", "projectId is required (this bridge has no default project)");
  return chosen;
}

function unavailable(configurationId: string, deleted: boolean): SteamharnessError {
  const why = deleted ? "was deleted" : "does not exist";
  return new SteamharnessError("not_found", `configuration "${configurationId}" ${why}; it is unavailable (cards showing it report it unavailable)`, {
    field: "configurationId",
  });
}

function invalid(field: string, message: string): SteamharnessError {
  return new SteamharnessError("input_validation", message, { field });
}
