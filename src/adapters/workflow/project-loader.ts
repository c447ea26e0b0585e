import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SteamharnessError } from "../../domain/errors.js";
import { parseWorkflowManifest, type WorkflowManifest } from "../../domain/workflow/project-manifest.js";
import { buildStructureReport, type StructureReport, type WorkflowDefinition } from "../../domain/workflow/workflow-definition.js";

/** A workflow project found on disk: its folder, manifest and absolute entry module path. */
export interface WorkflowProjectLocation {
  directory: string;
  manifest: WorkflowManifest;
  mainPath: string;
}

/** A project whose module is loaded: its definition and structure report. */
export interface LoadedWorkflowProject extends WorkflowProjectLocation {
  definition: WorkflowDefinition;
  structure: StructureReport;
}

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

async function importModule(mainPath: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(mainPath).href;
  if (mainPath.endsWith(".ts")) {
    // tsx's API compiles TypeScript on the fly for this one import tree, with or without
    // `--import tsx` on the process (the built worker runs without it).
    const { tsImport } = await import("tsx/esm/api");
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  }
  return (await import(url)) as Record<string, unknown>;
}

/**
 * Imports the project's entry module (.js, .mjs or .ts) and builds its structure report. Runs
 * project code: call it only inside a worker process. A module that fails to load is an
 * `input_validation` error naming the module.
 *
 * @example
 * const loaded = await loadWorkflowProject(await locateWorkflowProject(dir));
 */
export async function loadWorkflowProject(location: WorkflowProjectLocation): Promise<LoadedWorkflowProject> {
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(location.mainPath);
  } catch (error) {
    throw new SteamharnessError("input_validation", `cannot load workflow module ${location.mainPath}: ${(error as Error)?.message ?? String(error)}`, {
      cause: error,
    });
  }
  // tsImport of a CommonJS-style module nests the export one level down.
  let definition = mod.default;
  if (definition && typeof definition === "object" && !("entrypoints" in definition) && "default" in definition) {
    definition = (definition as { default: unknown }).default;
  }
  const structure = buildStructureReport(location.manifest, definition, location.mainPath);
  return { ...location, definition: definition as WorkflowDefinition, structure };
}
