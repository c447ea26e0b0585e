import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { WorkflowProjectLocation } from "./project-location.js";

const MODULE_OR_JSON = /\.(?:[cm]?[jt]sx?|json)$/;

/**
 * Whether loading a project can read a file of this name: modules, JSON and `.env` (what the
 * fingerprint hashes and the project watch listens for).
 *
 * @example
 * isLoadedFileName("workflow.mts") // true
 * isLoadedFileName("README.md") // false
 */
export function isLoadedFileName(name: string): boolean {
  return name === ".env" || MODULE_OR_JSON.test(name);
}

/**
 * Whether a walk of a project's files goes into this folder: not `node_modules`, not a
 * dot-folder, not one of `exclude` (data dirs placed inside the project).
 *
 * @example
 * isProjectFolder("/p/lib", "lib", new Set()) // true
 * isProjectFolder("/p/.workflow", ".workflow", new Set()) // false
 */
export function isProjectFolder(path: string, name: string, exclude: ReadonlySet<string>): boolean {
  return name !== "node_modules" && !name.startsWith(".") && !exclude.has(path);
}
/** Past these, fingerprinting would cost more than the load it saves: no fingerprint. */
const MAX_FILES = 2000;
const MAX_BYTES = 32 * 1024 * 1024;

/** Options of {@link projectFingerprint}. */
export interface ProjectFingerprintOptions {
  /** Absolute folders to leave out, e.g. data dirs placed inside the project. */
  exclude?: readonly string[];
  /** Mixed into the hash, e.g. the steamharness version and a cache format number. */
  salt?: string;
}

async function collect(directory: string, exclude: ReadonlySet<string>, into: string[]): Promise<boolean> {
  const entries = await readdir(directory, { withFileTypes: true });
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (exclude.has(path)) continue;
    let kind: "file" | "dir" | "other" = entry.isFile() ? "file" : entry.isDirectory() ? "dir" : "other";
    // A symlinked file counts (its target is what loads); symlinked folders are not followed.
    if (entry.isSymbolicLink()) kind = (await stat(path).catch(() => null))?.isFile() ? "file" : "other";
    if (kind === "dir") {
      if (!isProjectFolder(path, entry.name, exclude)) continue;
      if (!(await collect(path, exclude, into))) return false;
    } else if (kind === "file" && isLoadedFileName(entry.name)) {
      into.push(path);
      if (into.length > MAX_FILES) return false;
    }
  }
  return true;
}

/**
 * A hash of what loading a workflow project reads: every module, JSON file and `.env` under the
 * project folder (dot-folders, `node_modules` and `exclude` left out), the entry module wherever
 * it lives, and `node_modules/.package-lock.json` (npm rewrites it on every install, so
 * dependency changes count). Equal fingerprints mean an unchanged project; any edit, added or
 * removed file changes it. `null` when the project is too large to hash cheaply (over 2000
 * files or 32 MB), so callers skip caching rather than slow every start.
 *
 * @example
 * const key = await projectFingerprint(await locateWorkflowProject("/abs/project"), { salt: "v1" });
 */
export async function projectFingerprint(location: WorkflowProjectLocation, options: ProjectFingerprintOptions = {}): Promise<string | null> {
  const files: string[] = [];
  if (!(await collect(location.directory, new Set(options.exclude ?? []), files))) return null;
  const extra = [location.mainPath, join(location.directory, "node_modules", ".package-lock.json")];
  for (const path of extra) if (!files.includes(path)) files.push(path);
  files.sort();
  const hash = createHash("sha256").update(`steamharness-project-fingerprint\0${options.salt ?? ""}\0`);
  let bytes = 0;
  const contents = await Promise.all(files.map((path) => readFile(path).catch(() => null)));
  for (const [index, content] of contents.entries()) {
    const name = relative(location.directory, files[index]!).split(sep).join("/");
    if (content === null) {
      hash.update(`${name}\0absent\0`);
      continue;
    }
    bytes += content.length;
    if (bytes > MAX_BYTES) return null;
    hash.update(`${name}\0${content.length}\0`).update(content);
  }
  return hash.digest("hex");
}
