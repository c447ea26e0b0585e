import { pathToFileURL } from "node:url";
import { SteamharnessError } from "../../../domain/errors.js";
import { buildStructureReport, type StructureReport, type WorkflowDefinition } from "../../../domain/workflow/workflow-definition.js";
import type { WorkflowProjectLocation } from "./project-location.js";

export { locateWorkflowProject, type WorkflowProjectLocation } from "./project-location.js";

/** A project whose module is loaded: its definition and structure report. */
export interface LoadedWorkflowProject extends WorkflowProjectLocation {
  definition: WorkflowDefinition;
  structure: StructureReport;
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
