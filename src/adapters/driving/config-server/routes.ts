/**
 * The configuration server's routes (CFG-4): each maps one HTTP request onto one call of the
 * caller's account store, so the server keeps every rule of the `ProjectConfigurationStore`
 * port (revisions, conflicts, tombstones, import/export) by construction — the port's adapters
 * own them, the routes only translate.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";

/** One answer: status and JSON body. */
export interface RouteAnswer {
  status: number;
  body: unknown;
}

const invalid = (message: string, field: string) => new SteamharnessError("input_validation", `[steamharness] [config-server] ${message}`, { field });

/** The body as an object, else `input_validation`. */
function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw invalid("the body must be a JSON object", "body");
  return body as Record<string, unknown>;
}

/** `{ expectedRevision }` of a body; the store checks the number itself. */
function revisionOf(body: unknown): { expectedRevision: number } {
  return { expectedRevision: objectBody(body).expectedRevision as number };
}

/**
 * Serves `/v1/projects/<projectId>[/…]` (the segments after `projects`) for one account's store;
 * `null` when no route matches (the server answers 404).
 *
 * @example
 * await projectRoute(store, "GET", ["p1"], undefined) // { status: 200, body: overview }
 */
export async function projectRoute(store: ProjectConfigurationStore, method: string, segments: string[], body: unknown): Promise<RouteAnswer | null> {
  const [projectId, second, configurationId, action, ...rest] = segments;
  if (projectId === undefined || rest.length > 0) return null;
  const ok = (value: unknown, status = 200): RouteAnswer => ({ status, body: value });
  if (second === undefined) return method === "GET" ? ok(await store.read(projectId)) : null;
  if (second === "export" && configurationId === undefined) return method === "GET" ? ok(await store.exportProject(projectId)) : null;
  if (second === "fields" && configurationId === undefined) {
    if (method !== "PUT") return null;
    const input = objectBody(body);
    return ok(await store.setFields(projectId, input.fields as never, revisionOf(input)));
  }
  if (second === "import" && configurationId === undefined) {
    if (method !== "POST") return null;
    const input = objectBody(body);
    if (!("document" in input)) throw invalid("give the export document as `document`", "document");
    return ok(await store.importProject(projectId, input.document, revisionOf(input)));
  }
  if (second !== "configurations") return null;
  if (configurationId === undefined) {
    if (method !== "POST") return null;
    const input = objectBody(body);
    return ok(await store.create(projectId, { configurationId: input.configurationId as string, name: input.name as string, values: input.values as never }), 201);
  }
  if (action === "lookup") return method === "GET" ? ok(await store.lookup(projectId, configurationId)) : null;
  if (action === "select") return method === "POST" ? ok(await store.select(projectId, configurationId, revisionOf(body))) : null;
  if (action !== undefined) return null;
  if (method === "GET") return ok({ configuration: await store.get(projectId, configurationId) });
  if (method === "PATCH") {
    const input = objectBody(body);
    const update = { expectedRevision: input.expectedRevision as number, ...("name" in input ? { name: input.name as string } : {}), ...("values" in input ? { values: input.values as never } : {}) };
    return ok(await store.update(projectId, configurationId, update));
  }
  if (method === "DELETE") {
    await store.delete(projectId, configurationId, revisionOf(body));
    return ok({ deleted: true });
  }
  return null;
}
