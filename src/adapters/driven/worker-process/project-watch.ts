import { watch, type FSWatcher } from "node:fs";
import { readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isLoadedFileName, isProjectFolder } from "./project-fingerprint.js";
import type { ProjectWatch, WorkflowProjectLocation } from "../../../ports/project-files.js";

export type { ProjectWatch };

/** Past this many folders a project is not watched (reused workers then only retire by run count). */
const MAX_FOLDERS = 500;

/** Options of {@link watchProjectFiles}. */
export interface ProjectWatchOptions {
  /** Absolute folders to leave out, e.g. data dirs placed inside the project. */
  exclude?: readonly string[];
  /** Waits this long after the last change before telling (editors write in bursts); 100 ms by default. */
  debounceMs?: number;
}


async function folders(directory: string, exclude: ReadonlySet<string>, into: string[]): Promise<boolean> {
  into.push(directory);
  if (into.length > MAX_FOLDERS) return false;
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (!entry.isDirectory() || !isProjectFolder(path, entry.name, exclude)) continue;
    if (!(await folders(path, exclude, into))) return false;
  }
  return true;
}

/**
 * Watches the files loading a workflow project reads — modules, JSON and `.env` under the
 * project folder (dot-folders, `node_modules` and `exclude` left out), the entry module's folder
 * and `node_modules/.package-lock.json` — and calls `onChange` once per burst of changes. Used
 * by a host that reuses workers (MCP-9): a worker keeps the code it loaded, so an edit retires
 * it. Folders created after the watch starts are not watched (a module in one is read only once
 * a watched file imports it). Gives up (`watching: false`) past 500 folders or when the platform
 * cannot watch.
 *
 * @example
 * const watcher = await watchProjectFiles(location, () => pool.renew());
 * // … later
 * watcher.close();
 */
export async function watchProjectFiles(location: WorkflowProjectLocation, onChange: () => void, options: ProjectWatchOptions = {}): Promise<ProjectWatch> {
  const list: string[] = [];
  const complete = await folders(location.directory, new Set(options.exclude ?? []), list);
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const close = () => {
    closed = true;
    if (timer) clearTimeout(timer);
    for (const watcher of watchers.splice(0)) watcher.close();
  };
  if (!complete) return { watching: false, close };
  const changed = (name: string | null) => {
    if (closed || (name !== null && !isLoadedFileName(name))) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) onChange();
    }, options.debounceMs ?? 100);
    timer.unref();
  };
  const targets = new Set([...list, dirname(location.mainPath), join(location.directory, "node_modules")]);
  try {
    for (const folder of targets) {
      let watcher: FSWatcher;
      try {
        watcher = watch(folder, { persistent: false }, (_event, name) => changed(name === null ? null : String(name)));
      } catch (error) {
        // node_modules may not exist; any other folder that cannot be watched stops the watch.
        if (folder === join(location.directory, "node_modules")) continue;
        throw error;
      }
      watcher.on("error", () => undefined);
      watchers.push(watcher);
    }
  } catch {
    close();
    return { watching: false, close };
  }
  return { watching: true, close };
}
