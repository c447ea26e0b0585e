import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { SteamharnessError } from "../../../domain/errors.js";
import { parseWorkflowManifest } from "../../../domain/workflow/project-manifest.js";
import type { WorkflowProjectLocation } from "../../../ports/project-files.js";

// Kept apart from the module loader so hosts can check a project (and fail fast) without
// loading TypeBox or any project code.

export type { WorkflowProjectLocation };

/**
 * Reads and checks a workflow project's `package.json` and entry module path without running
 * any project code. Errors: `not_found` for a missing folder or entry module, `input_validation`
 * for a folder without `package.json`, a non-workflow project or a bad id.
 *
 * @example
 * const project = await locateWorkflowProject("examples/workflow-project");
 * project.manifest.id // "…uuid…"
 */
export async function locateWorkflowProject(dir: string): Promise<WorkflowProjectLocation> {
  const directory = resolve(dir);
  const info = await stat(directory).catch(() => null);
  if (!info || !info.isDirectory()) throw new SteamharnessError("not_found", `workflow project folder not found: ${directory}`);
  const pkgPath = join(directory, "package.json");
  let text: string;
  try {
    text = await readFile(pkgPath, "utf8");
  } catch {
    throw new SteamharnessError("input_validation", `not a workflow project: ${directory} has no package.json`, { field: "package.json" });
  }
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch (error) {
    throw new SteamharnessError("input_validation", `${pkgPath} is not valid JSON`, { cause: error });
  }
  const manifest = parseWorkflowManifest(pkg, pkgPath);
  const mainPath = resolve(directory, manifest.main);
  const mainInfo = await stat(mainPath).catch(() => null);
  if (!mainInfo || !mainInfo.isFile()) {
    throw new SteamharnessError("not_found", `workflow entry module not found: ${mainPath} (package.json "main")`, { field: "main" });
  }
  return { directory, manifest, mainPath };
}
