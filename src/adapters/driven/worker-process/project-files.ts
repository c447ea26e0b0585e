import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, watch } from "node:fs";
import { link, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { ProjectFiles } from "../../../ports/project-files.js";
import { resolveDataDirs } from "./data-dirs.js";
import { readProjectFile, resolveProjectFile } from "./project-file.js";
import { checkFileParams } from "./file-params.js";
import { fileParamPolicy } from "./file-roots.js";
import { readProjectEnv } from "./project-env.js";
import { projectFingerprint } from "./project-fingerprint.js";
import { locateWorkflowProject } from "./project-location.js";
import { watchProjectFiles } from "./project-watch.js";

/**
 * The {@link ProjectFiles} port over node:fs (ARCH-7). `sessionFolderOf` is the session store's
 * rule for where a project's agent sessions live (SES-10), handed in by the composition root.
 *
 * @example
 * const files = createProjectFiles({ sessionFolderOf: agentStoreDirFor });
 * const location = await files.locate("/srv/project");
 */
export function createProjectFiles(options: { sessionFolderOf(projectDir: string, given?: string): string }): ProjectFiles {
  return {
    locate: locateWorkflowProject,
    readEnv: readProjectEnv,
    filePolicy: fileParamPolicy,
    checkFileParams,
    watch: watchProjectFiles,
    fingerprint: projectFingerprint,
    exists: (path) => existsSync(path),
    subfolders: (directory) =>
      existsSync(directory)
        ? readdirSync(directory, { withFileTypes: true })
            .filter((entry) => entry.isDirectory())
            .map((entry) => join(directory, entry.name))
        : [],
    makeDirectory: (directory) => void mkdirSync(directory, { recursive: true }),
    homeDir: () => homedir(),
    dataFolders({ sessionFolder, ...given }, projectDir) {
      // The use case's session folder is the layout's `--agent-store-dir`.
      const dirs = resolveDataDirs({ ...given, ...(sessionFolder === undefined ? {} : { agentStoreDir: sessionFolder }) }, { home: homedir(), agentStoreDirFor: options.sessionFolderOf }, projectDir);
      return { dirs, sessionFolder: dirs.agentStoreDir };
    },
    resolveFile: async (projectDir, file) => (await resolveProjectFile(projectDir, file)).path,
    readFile: (projectDir, file, maxBytes) => readProjectFile(projectDir, file, maxBytes),
    watchFile(path, onChange) {
      try {
        const watcher = watch(path, { persistent: false }, (event) => onChange(event === "rename" ? "rename" : "change"));
        watcher.on("error", () => watcher.close());
        return { close: () => watcher.close() };
      } catch {
        return null;
      }
    },
    readText: (path) => readFile(path, "utf8").catch(() => null),
    async replaceText(path, text) {
      const temporary = `${path}.${randomBytes(4).toString("hex")}.tmp`;
      try {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(temporary, text);
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true }).catch(() => undefined);
        throw error;
      }
    },
    async createTextOnce(path, text) {
      const existing = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? null : Promise.reject(error)));
      if (existing !== null) return existing;
      await mkdir(dirname(path), { recursive: true });
      const aside = `${path}.${randomBytes(4).toString("hex")}.tmp`;
      try {
        await writeFile(aside, text, { flag: "wx", mode: 0o600, flush: true });
        // link() fails with EEXIST when another writer won: its file is the one read below.
        await link(aside, path).catch((error: NodeJS.ErrnoException) => (error.code === "EEXIST" ? undefined : Promise.reject(error)));
      } finally {
        await rm(aside, { force: true }).catch(() => undefined);
      }
      return readFile(path, "utf8");
    },
  };
}
