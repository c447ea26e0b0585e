import { SteamharnessError } from "../errors.js";

/** What steamharness reads from a workflow project's `package.json` (WF-1). */
export interface WorkflowManifest {
  /** The immutable project id, a UUID. */
  id: string;
  /** Always `"workflow"` once validated. */
  projectType: "workflow";
  /** The workflow module, relative to the project folder: `.js`, `.mjs` or `.ts`. */
  main: string;
  /** `package.json` `name`, when present. */
  name?: string;
  /** `package.json` `version`, when present. */
  version?: string;
  /**
   * `package.json` `relatedProjects` (CFG-5): ids of the projects this project confirms as
   * related. `--related-project` binds a project only when both declare each other.
   */
  relatedProjects?: string[];
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAIN_EXTENSIONS = [".js", ".mjs", ".ts"] as const;

/**
 * True when `value` is a UUID in the canonical 8-4-4-4-12 hex form (any version).
 *
 * @example
 * isUuid("11111111-1111-4111-8111-111111111111") // true
 */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID_PATTERN.test(value);
}

/**
 * Validates a parsed `package.json` as a workflow project manifest. Throws `input_validation`
 * (with `field`) for a missing or non-UUID `id`, a `projectType` other than `"workflow"`
 * (conversation and kanban projects, plain folders) or a `main` that is not a relative
 * `.js`, `.mjs` or `.ts` module path.
 *
 * @example
 * const manifest = parseWorkflowManifest(JSON.parse(text));
 * manifest.id // "11111111-1111-4111-8111-111111111111"
 */
export function parseWorkflowManifest(pkg: unknown, where = "package.json"): WorkflowManifest {
  if (typeof pkg !== "object" || pkg === null || Array.isArray(pkg)) {
    throw new SteamharnessError("input_validation", `${where} is not a JSON object`);
  }
  const record = pkg as Record<string, unknown>;
  const projectType = record.projectType;
  if (projectType !== "workflow") {
    const found = projectType === undefined ? "no projectType" : `projectType ${JSON.stringify(projectType)}`;
    throw new SteamharnessError(
      "input_validation",
      `not a workflow project: ${where} has ${found}; only projectType "workflow" can be served (conversation and kanban projects and plain folders expose nothing)`,
      { field: "projectType" },
    );
  }
  if (record.id === undefined) {
    throw new SteamharnessError("input_validation", `${where} has no "id"; a workflow project declares an immutable UUID id`, { field: "id" });
  }
  if (!isUuid(record.id)) {
    throw new SteamharnessError("input_validation", `${where} "id" must be a UUID, got ${JSON.stringify(record.id)}`, { field: "id" });
  }
  const main = record.main;
  if (typeof main !== "string" || main.trim() === "") {
    throw new SteamharnessError("input_validation", `${where} has no "main"; name the workflow module (.js, .mjs or .ts)`, { field: "main" });
  }
  if (!MAIN_EXTENSIONS.some((ext) => main.endsWith(ext))) {
    throw new SteamharnessError("input_validation", `${where} "main" must end in .js, .mjs or .ts, got ${JSON.stringify(main)}`, { field: "main" });
  }
  if (main.startsWith("/") || /^[A-Za-z]:[\\/]/.test(main)) {
    throw new SteamharnessError("input_validation", `${where} "main" must be relative to the project folder, got ${JSON.stringify(main)}`, { field: "main" });
  }
  const manifest: WorkflowManifest = { id: record.id, projectType: "workflow", main };
  if (typeof record.name === "string") manifest.name = record.name;
  if (typeof record.version === "string") manifest.version = record.version;
  if (record.relatedProjects !== undefined) manifest.relatedProjects = parseRelatedProjectIds(record.relatedProjects, where);
  return manifest;
}

function parseRelatedProjectIds(value: unknown, where: string): string[] {
  if (!Array.isArray(value)) {
    throw new SteamharnessError("input_validation", `${where} "relatedProjects" must be a list of project ids (UUIDs), got ${JSON.stringify(value)}`, { field: "relatedProjects" });
  }
  value.forEach((id, index) => {
    if (!isUuid(id)) {
      throw new SteamharnessError("input_validation", `${where} "relatedProjects"[${index}] must be a project id (UUID), got ${JSON.stringify(id)}`, { field: `relatedProjects[${index}]` });
    }
  });
  return value.map((id: string) => id.toLowerCase());
}

/**
 * The MCP server name of a workflow project: `workflow-<id>` (MCP-1).
 *
 * @example
 * workflowServerName("11111111-1111-4111-8111-111111111111") // "workflow-11111111-1111-4111-8111-111111111111"
 */
export function workflowServerName(projectId: string): string {
  return `workflow-${projectId}`;
}
