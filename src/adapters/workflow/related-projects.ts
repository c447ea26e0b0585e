import { isAbsolute } from "node:path";
import { SteamharnessError } from "../../domain/errors.js";
import type { RelatedProject } from "../../domain/workflow/run-context.js";
import { locateWorkflowProject } from "./project-location.js";

const ALIAS = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * Parses repeated `--related-project alias=/abs/dir` values: the alias is a short identifier,
 * unique; the directory is absolute and holds a workflow project (its id is read, no code runs).
 *
 * @example
 * await parseRelatedProjects(["billing=/srv/projects/billing"])
 * // [{ alias: "billing", projectId: "…", directory: "/srv/projects/billing" }]
 */
export async function parseRelatedProjects(values: readonly string[]): Promise<RelatedProject[]> {
  const out: RelatedProject[] = [];
  for (const value of values) {
    const eq = value.indexOf("=");
    const alias = eq > 0 ? value.slice(0, eq) : "";
    const directory = eq > 0 ? value.slice(eq + 1) : "";
    if (!ALIAS.test(alias) || directory === "") {
      throw new SteamharnessError("input_validation", `--related-project expects <alias>=<absolute project dir>, got ${JSON.stringify(value)}`, { field: "--related-project" });
    }
    if (!isAbsolute(directory)) {
      throw new SteamharnessError("input_validation", `--related-project ${alias}: the project dir must be an absolute path, got ${JSON.stringify(directory)}`, { field: "--related-project" });
    }
    if (out.some((project) => project.alias === alias)) {
      throw new SteamharnessError("input_validation", `--related-project alias ${alias} is given twice`, { field: "--related-project" });
    }
    const location = await locateWorkflowProject(directory);
    out.push({ alias, projectId: location.manifest.id, directory: location.directory });
  }
  return out;
}
