import type { RelatedProject } from "../../domain/workflow/run-context.js";
import { resolveDataDirs, type DataDirOptions, type WorkflowDataDirs } from "./data-dirs.js";
import { locateWorkflowProject, type WorkflowProjectLocation } from "./project-location.js";
import { parseRelatedProjects } from "./related-projects.js";

/** What can be checked about a host without loading project code: project, dirs, related projects. */
export interface PrecheckedWorkflowHost {
  location: WorkflowProjectLocation;
  dirs: WorkflowDataDirs;
  relatedProjects: RelatedProject[];
}

/**
 * The cheap, fail-fast part of opening a host (no TypeBox, no worker): the manifest, the data
 * dirs (absolute) and the related projects. Throws what `createWorkflowHost` would.
 *
 * @example
 * const checked = await precheckWorkflowHost({ projectDir: "/abs/project" });
 */
export async function precheckWorkflowHost(options: { projectDir: string; dirs?: DataDirOptions; relatedProjects?: readonly string[] }): Promise<PrecheckedWorkflowHost> {
  const location = await locateWorkflowProject(options.projectDir);
  const dirs = resolveDataDirs(options.dirs ?? {});
  const relatedProjects = await parseRelatedProjects(options.relatedProjects ?? []);
  return { location, dirs, relatedProjects };
}
