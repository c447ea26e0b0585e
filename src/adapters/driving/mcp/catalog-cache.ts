import { join } from "node:path";
import type { Tool } from "@modelcontextprotocol/server";
import type { StructureReport } from "../../../domain/workflow/workflow-definition.js";
import type { ProjectFiles, RunDataDirs, WorkflowProjectLocation } from "../../../ports/project-files.js";

/** Bumped whenever the cached shape or the way tools are built from a structure changes. */
const CACHE_FORMAT = 2;

/** What `steamharness mcp` publishes for a project: its structure report and the tools built from it. */
export interface WorkflowCatalog {
  structure: StructureReport;
  tools: Tool[];
}

/** The on-disk entry: one file per project, replaced when the project changes. */
interface CatalogCacheFile extends WorkflowCatalog {
  format: number;
  key: string;
}

/** Where one project's catalog is cached, and under which key. */
export interface CatalogCacheSlot {
  /** `<data-dir>/cache/mcp-catalog/<project id>.json` */
  path: string;
  /** The project fingerprint (salted with the format and steamharness version); null: do not cache. */
  key: string | null;
  /** How the entry is read and replaced. */
  files: Pick<ProjectFiles, "readText" | "replaceText">;
}

/**
 * The cache slot of a project (MCP-9): a file under the data dir — never the package folder —
 * keyed by a fingerprint of the project's files, so any edit invalidates it.
 *
 * @example
 * const slot = await catalogCacheSlot(location, dirs, "0.1.0", runner.ports.files);
 * const cached = await readCatalogCache(slot); // null on the first start
 */
export async function catalogCacheSlot(location: WorkflowProjectLocation, dirs: RunDataDirs, version: string, files: Pick<ProjectFiles, "fingerprint" | "readText" | "replaceText">): Promise<CatalogCacheSlot> {
  const exclude = [...new Set(Object.values(dirs))];
  const key = await files.fingerprint(location, { exclude, salt: `mcp-catalog ${CACHE_FORMAT} steamharness ${version}` });
  return { path: join(dirs.dataDir, "cache", "mcp-catalog", `${location.manifest.id}.json`), key, files };
}

/**
 * The cached catalog when the slot's key matches the stored one; `null` when there is none, it
 * was written for other project files, or it cannot be read (a cache never fails a start).
 *
 * @example
 * const cached = await readCatalogCache(slot);
 */
export async function readCatalogCache(slot: CatalogCacheSlot): Promise<WorkflowCatalog | null> {
  if (slot.key === null) return null;
  const text = await slot.files.readText(slot.path);
  if (text === null) return null;
  try {
    const file = JSON.parse(text) as Partial<CatalogCacheFile>;
    if (file.format !== CACHE_FORMAT || file.key !== slot.key || !file.structure || !Array.isArray(file.tools)) return null;
    return { structure: file.structure, tools: file.tools };
  } catch {
    return null;
  }
}

/**
 * Stores a catalog under the slot's key, atomically (a temporary file renamed into place, so a
 * concurrent start reads the old entry or the new one, never half of one). Errors are returned,
 * not thrown: a read-only data dir only costs the next start its speed.
 *
 * @example
 * const problem = await writeCatalogCache(slot, { structure, tools });
 */
export async function writeCatalogCache(slot: CatalogCacheSlot, catalog: WorkflowCatalog): Promise<Error | null> {
  if (slot.key === null) return null;
  const file: CatalogCacheFile = { format: CACHE_FORMAT, key: slot.key, ...catalog };
  return slot.files.replaceText(slot.path, `${JSON.stringify(file)}\n`).then(
    () => null,
    (error: unknown) => error as Error,
  );
}
